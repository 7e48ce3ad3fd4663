//! The calculator's child process for this crate's tests and bench;
//! production runs the same entry through `adfarm adbench calculator`.

fn main() -> std::process::ExitCode {
    adfarm_calculator::run_stdio()
}
