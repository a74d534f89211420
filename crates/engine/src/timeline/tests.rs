//! Timeline tests.
