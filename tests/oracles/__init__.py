"""References the model is checked against, written independently of it (a bare heapq loop)."""
