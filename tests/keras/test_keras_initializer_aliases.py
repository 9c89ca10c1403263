"""The initializer names Keras accepts besides the snake-case class names."""
import pytest

from tapegrad import keras


@pytest.mark.parametrize("name,cls", [
    ("uniform", "RandomUniform"), ("normal", "RandomNormal"), ("one", "Ones"), ("zero", "Zeros"),
    ("lecun_normal", "LecunNormal"), ("lecun_uniform", "LecunUniform"), ("orthogonal", "Orthogonal"),
    ("truncated_normal", "TruncatedNormal"), ("identity", "Identity"), ("OrthogonalInitializer", "Orthogonal"),
    ("IdentityInitializer", "Identity"), ("variance_scaling", "VarianceScaling"), ("he_uniform", "HeUniform"),
])
def test_alias(name, cls):
    assert type(keras.initializers.get(name)) is getattr(keras.initializers, cls)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="Unknown initializer: 'gaussian'.*uniform"):
        keras.initializers.get("gaussian")
