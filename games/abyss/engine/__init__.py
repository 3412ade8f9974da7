"""Abyss: card data, rules engine and fast kernels."""
