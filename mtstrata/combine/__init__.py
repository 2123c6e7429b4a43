"""Combination and meta-evaluation: ULC, metric-set search, correlations, significance."""
