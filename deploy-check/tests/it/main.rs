//! Renders the chart and checks every document against the Kubernetes API.

mod broken;
mod chart;
mod check;
