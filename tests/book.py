"""The book's model and custom-loop training step (chapter 12), written as the book writes them."""
from tapegrad import keras
import tapegrad as tf


def book_model():
    l2_reg = keras.regularizers.l2(0.05)
    return keras.models.Sequential([
        keras.layers.Dense(30, activation="elu", kernel_initializer="he_normal", kernel_regularizer=l2_reg),
        keras.layers.Dense(1, kernel_regularizer=l2_reg)])


def book_step(model, optimizer, mean_loss=None, metrics=()):
    """One step of the book's loop; the loss Mean and the metrics are updated when given."""
    loss_fn = keras.losses.mean_squared_error

    def step(X_batch, y_batch):
        with tf.GradientTape() as tape:
            y_pred = model(X_batch, training=True)
            main_loss = tf.reduce_mean(loss_fn(y_batch, y_pred))
            loss = tf.add_n([main_loss] + model.losses)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        for variable in model.variables:
            if variable.constraint is not None:
                variable.assign(variable.constraint(variable))
        if mean_loss is not None:
            mean_loss(loss)
        for metric in metrics:
            metric(y_batch, y_pred)
        return loss
    return step
