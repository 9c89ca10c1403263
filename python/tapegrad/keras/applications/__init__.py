"""keras.applications: Keras's image classification networks, with Keras's layer names, so the weight
files Keras releases load into them."""
from tapegrad.keras.applications import (convnext, densenet, efficientnet, imagenet_utils, inception_v3,
                                         mobilenet_v2, mobilenet_v3, resnet, resnet50, resnet_v2, vgg16, vgg19,
                                         xception)
from tapegrad.keras.applications.convnext import (ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny,
                                                   ConvNeXtXLarge)
from tapegrad.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tapegrad.keras.applications.efficientnet import EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3
from tapegrad.keras.applications.inception_v3 import InceptionV3
from tapegrad.keras.applications.mobilenet_v2 import MobileNetV2
from tapegrad.keras.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from tapegrad.keras.applications.resnet import ResNet50, ResNet101, ResNet152
from tapegrad.keras.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from tapegrad.keras.applications.vgg16 import VGG16
from tapegrad.keras.applications.vgg19 import VGG19
from tapegrad.keras.applications.xception import Xception

__all__ = ["ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge", "DenseNet121",
           "DenseNet169", "DenseNet201", "EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "InceptionV3", "MobileNetV2", "MobileNetV3Small", "MobileNetV3Large", "ResNet50", "ResNet101",
           "ResNet152", "ResNet50V2", "ResNet101V2", "ResNet152V2", "VGG16", "VGG19", "Xception",
           "convnext", "densenet", "efficientnet", "imagenet_utils", "inception_v3", "mobilenet_v2", "mobilenet_v3",
           "resnet", "resnet50", "resnet_v2", "vgg16", "vgg19", "xception"]
