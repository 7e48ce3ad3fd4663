//! The calculator's child process for this crate's tests; production runs
//! the same entry through `adfarm adbench calculator`.

fn main() -> std::process::ExitCode {
    adfarm_calculator::run_stdio()
}
