"""Front ends: parse kernel source, find the accesses to check, rewrite the source."""
