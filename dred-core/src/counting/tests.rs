//! Unit tests of `counting`.
