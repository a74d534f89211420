//! Observation tests.
