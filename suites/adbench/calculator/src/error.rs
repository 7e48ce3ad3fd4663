//! How a calculator run fails: Python exceptions that a snippet's own
//! `try` can catch, and faults (refusals, syntax, limits) that end the run.

/// A Python-level exception: `kind` is the class name (`ZeroDivisionError`).
#[derive(Debug, Clone, PartialEq)]
pub struct PyException {
    pub kind: String,
    pub message: String,
    /// The source line where it was raised, once known.
    pub line: Option<u32>,
    /// The function that line is in, when it is not module level.
    pub function: Option<String>,
}

/// What ends a run regardless of the snippet's `try` blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// A construct, import or name the calculator refuses by policy.
    Refused(String),
    Syntax(String),
    /// An allocation the calculator would not or could not make.
    Memory(String),
    /// Printed output passed the cap; the run stops there.
    OutputFull,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Raised {
    Exception(PyException),
    Fault(Fault),
}

impl Raised {
    pub fn fault(fault: Fault) -> Raised {
        Raised::Fault(fault)
    }

    pub fn exc(kind: &str, message: impl Into<String>) -> Raised {
        Raised::Exception(PyException {
            kind: kind.to_string(),
            message: message.into(),
            line: None,
            function: None,
        })
    }

    pub fn type_error(message: impl Into<String>) -> Raised {
        Raised::exc("TypeError", message)
    }

    pub fn value_error(message: impl Into<String>) -> Raised {
        Raised::exc("ValueError", message)
    }

    pub fn refused(message: impl Into<String>) -> Raised {
        Raised::Fault(Fault::Refused(message.into()))
    }

    /// Attaches the line of the statement being run, unless a deeper one
    /// (inside a called function) already did.
    pub fn at_line(self, line: u32) -> Raised {
        match self {
            Raised::Exception(mut e) => {
                e.line.get_or_insert(line);
                Raised::Exception(e)
            }
            other => other,
        }
    }
}

/// Python's exception hierarchy for the classes the calculator raises, so
/// that `except ArithmeticError` catches `ZeroDivisionError` as in CPython.
pub fn is_subclass(kind: &str, base: &str) -> bool {
    if kind == base || base == "Exception" || base == "BaseException" {
        return true;
    }
    let parent = match kind {
        "ZeroDivisionError" | "OverflowError" => "ArithmeticError",
        "KeyError" | "IndexError" => "LookupError",
        "UnboundLocalError" => "NameError",
        "RecursionError" => "RuntimeError",
        "StatisticsError" => "ValueError",
        "ModuleNotFoundError" => "ImportError",
        _ => return false,
    };
    is_subclass(parent, base)
}

/// Exception classes a snippet may name, raise or catch.
pub const EXCEPTION_CLASSES: &[&str] = &[
    "Exception",
    "BaseException",
    "ArithmeticError",
    "ZeroDivisionError",
    "OverflowError",
    "LookupError",
    "KeyError",
    "IndexError",
    "ValueError",
    "TypeError",
    "NameError",
    "UnboundLocalError",
    "AttributeError",
    "RuntimeError",
    "RecursionError",
    "AssertionError",
    "StopIteration",
    "NotImplementedError",
    "StatisticsError",
    "ImportError",
    "ModuleNotFoundError",
];
