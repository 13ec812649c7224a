"""Model files shipped with the package: the span detector's config and weights."""
