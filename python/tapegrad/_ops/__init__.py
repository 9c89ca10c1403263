"""Python wrappers over the C++ op table, one module per op family (argument conversion only)."""
