"""Count the activations ResNet-50 keeps for its backward pass, per 224x224 sample.

The figure behind ``pricing/data/model_shapes.csv``'s ``activation_gb_per_sample`` for
``resnet-50``: the output of every convolution, batch norm and ReLU of torchvision's
``resnet50`` (the v1.5 layout: the stride on each bottleneck's 3x3 convolution), plus the input
and the max-pool output, in FP32. torchvision's ReLUs run in place, so a framework may keep less;
cuDNN's workspace is not counted (the memory model's reserve covers it).

    python scripts/count_resnet50_activations.py
"""

from __future__ import annotations


def count() -> int:
    values = 3 * 224 * 224  # the input
    side = 112
    values += 3 * 64 * side * side  # conv1, bn1, relu
    side = 56
    values += 64 * side * side  # max pool
    width_in = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            s = stride if b == 0 else 1
            out_side = side // s
            values += 3 * width * side * side  # 1x1 conv, bn, relu at the input's size
            values += 3 * width * out_side * out_side  # 3x3 conv (strided), bn, relu
            values += 2 * 4 * width * out_side * out_side  # 1x1 conv, bn
            if b == 0:
                values += 2 * 4 * width * out_side * out_side  # downsample conv, bn
            values += 4 * width * out_side * out_side  # the sum's ReLU
            side = out_side
        width_in = 4 * width
    return values + width_in  # the pooled features before the classifier


if __name__ == "__main__":
    n = count()
    print(f"{n:,} values a sample = {n * 4 / 1e9:.3f} GB in FP32")
