"""Neural networks: tensors in, tensors out (graph network policy/value to come)."""
