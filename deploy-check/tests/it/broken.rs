//! Deliberately broken fixture charts: the check must fail on each, with an
//! error that names the file or object and the fault.

use crate::check::{chart_dir, check_chart};

#[test]
fn a_template_that_does_not_parse_is_refused_by_helm_lint() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-syntax"), &[]).unwrap_err();
    assert!(err.contains("lint --strict"), "{err}");
    assert!(
        err.contains("parse error at (broken/templates/deployment.yaml:17): unexpected EOF"),
        "{err}"
    );
}

#[test]
fn a_field_of_the_wrong_type_fails_validation_and_the_typed_check() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-type"), &[]).unwrap_err();
    assert!(
        err.contains("deployment/adfarm against version 1.35: spec.replicas: '2 replicas' is not of type 'integer'"),
        "{err}"
    );
    assert!(
        err.contains("templates/deployment.yaml: Deployment: "),
        "{err}"
    );
}

#[test]
fn a_misplaced_field_fails_validation_and_the_typed_check() {
    let err = check_chart(&chart_dir("tests/fixtures/broken-field"), &[]).unwrap_err();
    assert!(
        err.contains(
            "spec.template.spec: Additional properties are not allowed ('image' was unexpected)"
        ),
        "{err}"
    );
    assert!(err.contains("fields lost"), "{err}");
}
