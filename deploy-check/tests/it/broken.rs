//! Deliberately broken fixture charts: the check must fail on each.

use crate::check::{chart_dir, check_chart};

#[test]
fn a_template_that_does_not_parse_fails_the_check() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-syntax"), &[]).unwrap_err();
    assert!(err.contains("deployment.yaml"), "{err}");
}

#[test]
fn a_field_of_the_wrong_type_fails_the_check() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-type"), &[]).unwrap_err();
    assert!(err.contains("deployment.yaml: Deployment"), "{err}");
}

#[test]
fn a_misplaced_field_fails_the_check() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-field"), &[]).unwrap_err();
    assert!(err.contains("fields lost"), "{err}");
}
