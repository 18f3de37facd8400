"""The ctxsieve eval: labelled questions run through several context configurations."""
