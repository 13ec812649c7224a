"""Model files shipped with the package: the SciERC joint model's weights and WordPiece vocabulary,
and the default profile's relation classifier."""
