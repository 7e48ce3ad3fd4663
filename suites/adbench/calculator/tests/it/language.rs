//! The calculator's language edges, interpreted in-process: what it refuses
//! and how it says so, which errors a snippet can catch, and how errors
//! point at lines.

use adfarm_calculator::{evaluate, ErrorKind, Reply, Request};

use crate::snippet;

fn eval(code: &str) -> Reply {
    evaluate(&snippet(code))
}

fn failure(code: &str) -> (ErrorKind, String) {
    let reply = eval(code);
    let error = reply
        .error
        .unwrap_or_else(|| panic!("{code:?} should fail, printed {:?}", reply.output));
    (error.kind, error.message)
}

#[test]
fn unsupported_constructs_are_named_so_the_agent_can_rephrase() {
    let cases = [
        ("def g():\n    yield 1", "`yield`"),
        (
            "def g():\n    x = 1\n    def h():\n        nonlocal x",
            "`nonlocal`",
        ),
        ("if (n := 3) > 2:\n    print(n)", "`:=`"),
        ("async def f():\n    pass", "`async`"),
        ("d = {}\nd.total = 3", "setting attributes"),
        ("class Row:\n    pass", "`class`"),
        ("with open('f') as fh:\n    pass", "`with`"),
        ("@cache\ndef f():\n    pass", "decorators"),
    ];
    for (code, needle) in cases {
        let (kind, message) = failure(code);
        assert_eq!(kind, ErrorKind::Refused, "{code}");
        assert!(
            message.contains(needle),
            "{code}: {message:?} should mention {needle}"
        );
        assert!(
            message.contains("calculator"),
            "{code}: {message:?} should say it is the calculator's limit"
        );
    }
}

#[test]
fn syntax_outside_the_subset_is_a_syntax_error_with_a_line() {
    // A literal past 4300 digits no longer fits a snippet (CODE_CHARS),
    // so the lexer's own digit limit is not reachable from here.
    for (code, needle) in [
        ("x = b'raw'", "line 1: bytes literals are not supported"),
        ("x = 1\ny = 3j", "line 2: complex numbers are not supported"),
        ("print('unclosed)", "line 1: unterminated string literal"),
        ("if True:\nprint(1)", "line 2: expected an indented block"),
        ("x = f'{}'", "empty expression not allowed"),
    ] {
        let (kind, message) = failure(code);
        assert_eq!(kind, ErrorKind::Syntax, "{code}");
        assert!(
            message.contains(needle),
            "{code}: {message:?} should contain {needle:?}"
        );
    }
}

#[test]
fn python_exceptions_are_catchable_by_class_and_base_class() {
    let reply = eval(
        "for f in (lambda: 1 / 0, lambda: [][1], lambda: {}['k'], lambda: int('x'), lambda: undefined_name):\n\
         \x20   try:\n\
         \x20       f()\n\
         \x20   except ArithmeticError as e:\n\
         \x20       print('arith', e)\n\
         \x20   except LookupError as e:\n\
         \x20       print('lookup', type(e).__name__, e)\n\
         \x20   except Exception as e:\n\
         \x20       print('other', type(e).__name__)\n\
         \x20   else:\n\
         \x20       print('no error')\n\
         \x20   finally:\n\
         \x20       print('-')",
    );
    assert_eq!(reply.error, None);
    assert_eq!(
        reply.output,
        "arith division by zero\n-\nlookup IndexError list index out of range\n-\nlookup KeyError 'k'\n-\nother ValueError\n-\nother NameError\n-\n"
    );
}

#[test]
fn policy_refusals_and_limits_cannot_be_caught() {
    let (kind, _) = failure("try:\n    open('x')\nexcept Exception:\n    print('caught')");
    assert_eq!(kind, ErrorKind::Refused);
    let (kind, _) =
        failure("try:\n    s = 'a' * (1 << 40)\nexcept Exception:\n    print('caught')");
    assert_eq!(kind, ErrorKind::Memory);
    let reply = eval("try:\n    while True:\n        print('spam' * 100)\nexcept Exception:\n    print('caught')");
    assert_eq!(reply.error.map(|e| e.kind), Some(ErrorKind::OutputTooLong));
}

#[test]
fn uncaught_errors_report_the_innermost_line() {
    let (kind, message) = failure("def cpa(cost, conv):\n    return cost / conv\n\nrows = [(10, 2), (5, 0)]\nfor c, v in rows:\n    print(cpa(c, v))");
    assert_eq!(kind, ErrorKind::Runtime);
    assert_eq!(
        message,
        "ZeroDivisionError: division by zero (line 2, in cpa)"
    );

    let (_, message) = failure("x = 1\nraise ValueError(f'bad value {x}')");
    assert_eq!(message, "ValueError: bad value 1 (line 2)");

    let (_, message) = failure("import statistics\nstatistics.mean([])");
    assert_eq!(
        message,
        "StatisticsError: mean requires at least one data point (line 2)"
    );

    let (_, message) = failure("import math\nmath.sqrt(-1)");
    assert_eq!(message, "ValueError: math domain error (line 2)");

    let (_, message) = failure("'a' + 1");
    assert_eq!(
        message,
        "TypeError: can only concatenate str (not \"int\") to str (line 1)"
    );

    let (_, message) = failure("import math\nmath.median([1])");
    assert!(
        message.starts_with("AttributeError: module 'math' has no attribute 'median'"),
        "{message}"
    );
}

#[test]
fn integers_grow_past_64_bits_up_to_cpythons_printable_limit() {
    let reply = eval("x = 9223372036854775807\nx += 1\nprint(x, 2 ** 100, -x - 1 == -(2 ** 63) - 1, x // 3 * 3 + x % 3 == x)");
    assert_eq!(reply.error, None);
    assert_eq!(
        reply.output,
        "9223372036854775808 1267650600228229401496703205376 True True\n"
    );
    for code in [
        "print(2 ** 20000)",
        "x = 10 ** 4000\nprint(x * x)",
        "import math\nmath.factorial(3000)",
    ] {
        let (kind, message) = failure(code);
        assert_eq!(kind, ErrorKind::Runtime, "{code}");
        assert!(
            message.starts_with("OverflowError") && message.contains("4300 digits"),
            "{code}: {message}"
        );
    }
}

#[test]
fn variables_must_be_identifiers_holding_json() {
    let bad_name = evaluate(&Request {
        code: "print(1)".into(),
        variables: vec![("r-1".into(), "1".into())],
    });
    assert!(bad_name
        .error
        .expect("an error")
        .message
        .contains("not an identifier"));
    let bad_json = evaluate(&Request {
        code: "print(1)".into(),
        variables: vec![("r1".into(), "{oops".into())],
    });
    assert!(bad_json
        .error
        .expect("an error")
        .message
        .contains("not valid JSON"));
    let big = evaluate(&Request {
        code: "print(r1, type(r1).__name__)".into(),
        variables: vec![("r1".into(), "18446744073709551615".into())],
    });
    assert_eq!(big.output, "18446744073709551615 int\n");
}

#[test]
fn json_numbers_and_strings_arrive_exactly_as_cpythons_json_loads_reads_them() {
    // 17-digit floats that a best-effort float parser reads one ulp off.
    let floats = "[964842.2176518505, -6.792475937705741e+155, -3.0989065991270934e-37, 973398.2175685347, 182.55333333333334]";
    let reply = evaluate(&Request {
        code: "print(r1)\nprint(r2)".into(),
        variables: vec![
            ("r1".into(), floats.into()),
            ("r2".into(), r#"{"s": "\u00e9\ud83d\ude00 \"q\" \\ \n", "n": [1E5, -0, 12345678901234567890123]}"#.into()),
        ],
    });
    assert_eq!(reply.error, None);
    assert_eq!(
        reply.output,
        format!("{floats}\n{{'s': 'é😀 \"q\" \\\\ \\n', 'n': [100000.0, 0, 12345678901234567890123]}}\n")
    );
}

#[test]
fn a_refused_import_can_be_caught_like_cpythons_module_not_found() {
    let reply = eval("try:\n    import numpy as np\nexcept ImportError as e:\n    np = None\n    print(type(e).__name__, 'numpy' in str(e))\nprint(np)");
    assert_eq!(reply.error, None);
    assert_eq!(reply.output, "ModuleNotFoundError True\nNone\n");
    let (kind, message) = failure("print('a')\nimport json");
    assert_eq!(kind, ErrorKind::Refused);
    assert!(
        message.starts_with("line 2: import of `json` is refused"),
        "{message}"
    );
}

#[test]
fn the_tool_text_names_errors_and_silent_runs() {
    assert_eq!(
        eval("x = 2 * 21\nx").to_text(),
        "[no output] the snippet ran but printed nothing; use print(...) to show values"
    );
    assert_eq!(eval("print(6 * 7)").to_text(), "42\n");
    assert_eq!(
        eval("print('a', end='')\nprint(1 / 0)").to_text(),
        "a\n[error] ZeroDivisionError: division by zero (line 2)"
    );
}

#[test]
fn names_shadow_builtins_and_functions_see_globals() {
    let reply = eval(
        "sum = 0\nfor v in [1, 2, 3]:\n    sum += v\nprint(sum)\n\
         rate = 0.5\ndef scaled(x):\n    return x * rate\nprint(scaled(4))\n\
         def outer():\n    k = 3\n    return [k * i for i in range(3)]\nprint(outer())",
    );
    assert_eq!(reply.error, None);
    assert_eq!(reply.output, "6\n2.0\n[0, 3, 6]\n");
}
