"""Keras 3's preprocessing layers: numeric (Rescaling, Normalization, CategoryEncoding, Discretization,
Hashing), image (Resizing, CenterCrop and the random augmentations) and vocabulary/text (StringLookup,
IntegerLookup, TextVectorization). Layers with state to learn have ``adapt(data)``."""
from tapegrad.keras.layers.preprocessing.category_encoding import CategoryEncoding
from tapegrad.keras.layers.preprocessing.discretization import Discretization
from tapegrad.keras.layers.preprocessing.hashing import Hashing
from tapegrad.keras.layers.preprocessing.image_augmentation import RandomBrightness, RandomContrast, RandomCrop, \
    RandomFlip
from tapegrad.keras.layers.preprocessing.image_resizing import CenterCrop, Resizing
from tapegrad.keras.layers.preprocessing.lookup import IntegerLookup, StringLookup
from tapegrad.keras.layers.preprocessing.normalization import Normalization
from tapegrad.keras.layers.preprocessing.random_affine import RandomRotation, RandomTranslation, RandomZoom
from tapegrad.keras.layers.preprocessing.rescaling import Rescaling
from tapegrad.keras.layers.preprocessing.text_vectorization import TextVectorization

__all__ = ["Rescaling", "Normalization", "CategoryEncoding", "Discretization", "Hashing", "Resizing", "CenterCrop",
           "RandomFlip", "RandomCrop", "RandomContrast", "RandomBrightness", "RandomRotation", "RandomZoom",
           "RandomTranslation", "StringLookup", "IntegerLookup", "TextVectorization"]
