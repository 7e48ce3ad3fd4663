//! Lints and renders the chart with the real helm and checks every document
//! with kubernetes-validate and against the Kubernetes API types.

mod broken;
mod chart;
mod check;
