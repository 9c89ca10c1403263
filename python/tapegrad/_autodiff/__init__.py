"""Automatic differentiation's Python surface: GradientTape, custom and registered gradients, recompute."""
