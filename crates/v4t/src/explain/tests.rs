//! Tests of `v4t explain`.
