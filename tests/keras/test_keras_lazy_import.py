"""keras loads at its first use (lazy_module in _install.py) and each of its modules runs once, whatever
the first import names: a second run would make a second Layer or Callback class, and isinstance checks
would then drop user objects silently (a Horovod callback left out of fit). Each case runs in a fresh
interpreter."""
import subprocess
import sys

import pytest

CASES = {
    "import tapegrad loads no keras": "import sys, tapegrad as tf\n"
                                      "assert 'tapegrad.keras.layers' not in sys.modules\n"
                                      "assert tf.keras.layers.Dense.__name__ == 'Dense'",
    "a submodule first": "import tapegrad\nfrom tapegrad.keras.callbacks import Callback\n"
                         "from tapegrad.keras import _training\nassert _training.Callback is Callback",
    "from tapegrad.keras.layers import": "from tapegrad.keras.layers import Dense\nimport tapegrad as tf\n"
                                         "assert tf.keras.layers.Dense is Dense",
    "an alias's submodule first": "import tapegrad.keras.optimizers.adam as a\nimport tapegrad as tf\n"
                                  "assert tf.optimizers.Adam is a.Adam and tf.keras.optimizers.Adam is a.Adam",
    "distribute first": "import tapegrad.distribute as hvd\nfrom tapegrad.keras import _training\n"
                        "assert isinstance(hvd.callbacks.MetricAverageCallback(), _training.Callback)",
    "one module per name": "import sys, tapegrad as tf\nfrom tapegrad.keras.layers import Dense\n"
                           "import tapegrad.keras.models, tapegrad.keras.callbacks\n"
                           "for name, m in list(sys.modules.items()):\n"
                           "    if name.startswith('tapegrad.keras.'):\n"
                           "        parent, _, leaf = name.rpartition('.')\n"
                           "        held = getattr(sys.modules[parent], leaf, m)\n"
                           "        assert held is m or not hasattr(held, '__file__'), name",
}


@pytest.mark.parametrize("case", CASES)
def test_each_keras_module_runs_once(case):
    done = subprocess.run([sys.executable, "-c", CASES[case]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
