//! Redis store and limiter. To be written.
