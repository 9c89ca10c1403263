"""keras.preprocessing: image (array_to_img, img_to_array, load_img, save_img), sequence (pad_sequences),
image_dataset_from_directory, text_dataset_from_directory and timeseries_dataset_from_array."""
from tapegrad.keras.preprocessing import image, sequence  # noqa: F401
from tapegrad.keras._dataset_from_directory import image_dataset_from_directory, \
    text_dataset_from_directory  # noqa: F401
from tapegrad.keras._timeseries import timeseries_dataset_from_array  # noqa: F401

__all__ = ["image", "sequence", "image_dataset_from_directory", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
