use adfarm_gem::assets::GEMBENCH;
use adfarm_models::assets::{self, Pin};
use std::fs;

#[test]
fn second_fetch_downloads_nothing_and_list_verifies_everything() {
    let home = crate::home();
    // The local models' pins and a suite's (GEM-Bench's data).
    let all: Vec<&'static Pin> = assets::MODELS.into_iter().chain([&GEMBENCH]).collect();
    let again = assets::fetch(&home, &all).expect("fetch");
    assert_eq!(again.len(), 3);
    assert!(again.iter().all(|a| !a.downloaded), "{again:?}");
    let listed = assets::list(&home, &all).expect("list");
    assert_eq!(listed.len(), 3);
    for a in &listed {
        assert!(a.ok(), "{a:?}");
        assert_eq!(a.bytes(), a.pin.total_size());
    }
    assert!(assets::asset_dir(&home, &GEMBENCH)
        .join("GemBench/benchmarking/dataset/product/products.json")
        .is_file());
    assert!(assets::embedder_dir(&home)
        .join("model.safetensors")
        .is_file());
    assert!(assets::generator_gguf(&home).is_file());
}

#[test]
fn a_corrupt_asset_is_fetched_again_and_replaced_whole() {
    let src = assets::asset_dir(&crate::home(), &GEMBENCH);
    let home = std::env::temp_dir().join(format!("adfarm-models-corrupt-{}", std::process::id()));
    let _ = fs::remove_dir_all(&home);
    let dir = assets::asset_dir(&home, &GEMBENCH);
    for f in GEMBENCH.files {
        let to = dir.join(f.path);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(src.join(f.path), &to).unwrap();
    }
    // Hand-copied files without a marker pass a full check...
    let got = assets::fetch(&home, &[&GEMBENCH]).expect("fetch");
    assert!(!got[0].downloaded);
    // ...but a damaged one makes fetch download the wheel with pip again.
    let victim = dir.join(GEMBENCH.files[4].path);
    fs::write(&victim, b"tampered").unwrap();
    let got = assets::fetch(&home, &[&GEMBENCH]).expect("refetch");
    assert!(got[0].downloaded);
    let listed = assets::list(&home, &[&GEMBENCH]).unwrap();
    assert!(listed[0].ok(), "{:?}", listed[0]);
    // No temporary directories are left behind.
    let leftovers: Vec<_> = fs::read_dir(home.join("assets"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("gembench-1.0.9")]);
    let _ = fs::remove_dir_all(&home);
}

#[test]
fn a_corrupt_asset_is_named_with_the_command_that_fetches_it_again() {
    let src = assets::asset_dir(&crate::home(), &GEMBENCH);
    let home = std::env::temp_dir().join(format!("adfarm-models-check-{}", std::process::id()));
    let _ = fs::remove_dir_all(&home);
    // Nothing unpacked: nothing to check here (the reader says "not found").
    assert!(assets::check_present(&home, &[&GEMBENCH]).is_ok());
    let dir = assets::asset_dir(&home, &GEMBENCH);
    for f in GEMBENCH.files {
        let to = dir.join(f.path);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(src.join(f.path), &to).unwrap();
    }
    assert!(assets::check_present(&home, &[&GEMBENCH]).is_ok());

    let victim = GEMBENCH.files[4].path;
    fs::write(dir.join(victim), b"tampered").unwrap();
    let e = assets::check_present(&home, &[&GEMBENCH]).unwrap_err();
    assert_eq!(e.code(), "corrupt");
    let text = e.to_string();
    assert!(text.contains("gembench==1.0.9"), "{text}");
    assert!(text.contains(victim), "{text}");
    assert!(text.contains("run `adfarm assets fetch`"), "{text}");
    assert!(!text.contains("delete"), "{text}");

    // A hand-placed wheel that fails its sha256 is named for deletion.
    let wheel = assets::wheels_dir(&home).join(GEMBENCH.wheel);
    fs::create_dir_all(wheel.parent().unwrap()).unwrap();
    fs::write(&wheel, b"not the wheel").unwrap();
    let text = assets::check_present(&home, &[&GEMBENCH])
        .unwrap_err()
        .to_string();
    assert!(
        text.contains(&format!("delete {}", wheel.display())),
        "{text}"
    );
    let _ = fs::remove_dir_all(&home);
}
