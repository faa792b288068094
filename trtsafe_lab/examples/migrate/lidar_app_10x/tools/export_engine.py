"""Build the segmenter engine from Python (TensorRT 10.x)."""

import subprocess

import tensorrt as trt


def build(network: trt.INetworkDefinition, builder: trt.Builder) -> bytes:
    config = builder.create_builder_config()
    config.engine_capability = trt.EngineCapability.SAFETY
    config.set_flag(trt.BuilderFlag.SAFETY_SCOPE)
    return builder.build_serialized_network(network, config)


def build_with_trtexec(onnx: str, engine: str) -> None:
    subprocess.run(["trtexec", f"--onnx={onnx}", "--safe", "--best", f"--saveEngine={engine}"], check=True)
