"""Geometry: the locality-aware shape VAE, the two-stage flow generators, hierarchical surface extraction and
post-processing to one clean, watertight shell."""
