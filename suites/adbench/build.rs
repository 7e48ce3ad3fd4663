//! Embeds the shipped task files, so the one `adfarm` binary (and its
//! container image) carries every task without a source tree beside it.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read at run time, not baked in with env!: a build script compiled for
    // one checkout must not read another's tasks.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("tasks");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::from("&[\n");
    for split in ["public", "holdout"] {
        let dir = root.join(split);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().and_then(|n| n.to_str()).expect("utf-8 name");
            writeln!(
                out,
                "    ({split:?}, {:?}, include_str!({:?})),",
                format!("{split}/{name}"),
                f.display().to_string()
            )
            .expect("write to a string");
        }
    }
    out.push_str("]\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shipped_tasks.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
