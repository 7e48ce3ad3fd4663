//! Deterministic scoring (no model calls).
