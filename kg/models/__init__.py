"""Model files shipped with the package: the default profile's joint model (``learned_joint.npz``, and its
encoder as an int8 ONNX graph, ``learned_encoder.onnx``), the SciERC joint model's weights, the MiniLM
WordPiece vocabulary both read, and the rules profile's relation classifier."""
