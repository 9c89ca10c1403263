"""tf.version: the TensorFlow API version tapegrad implements, which is what scripts compare
(``tf.__version__ >= "2.0"``), and tapegrad's own version (``TAPEGRAD_VERSION``, also in show_config())."""
from tapegrad import _core
from tapegrad._debugging.show_config import _TF_API_VERSION, _package_version

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER", "TAPEGRAD_VERSION"]

VERSION = _TF_API_VERSION  # the TF release whose API, names and results tapegrad follows
TAPEGRAD_VERSION = _package_version()  # pyproject.toml is the one place it is written
GIT_VERSION = f"v{VERSION}-tapegrad-{TAPEGRAD_VERSION}"
COMPILER_VERSION = _core._build_info()["compiler"]
GRAPH_DEF_VERSION = 2474  # TF 2.21's GraphDef version (the graphs tapegrad's GraphDefs claim to be)
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
