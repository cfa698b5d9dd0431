"""The front ends without a GPU: rewritten sources (golden), what is checked, eliminated or proven at launch, internal errors, the differential fuzzer."""
