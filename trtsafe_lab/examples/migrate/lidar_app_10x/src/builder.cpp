// Offline safe-engine builder for the lidar segmenter (TensorRT 10.x).
#include "NvInfer.h"

#include <memory>

using namespace nvinfer1;

std::unique_ptr<IHostMemory> buildSegmenter(IBuilder& builder, INetworkDefinition& network)
{
    std::unique_ptr<IBuilderConfig> config{builder.createBuilderConfig()};
    config->setEngineCapability(EngineCapability::kSAFETY);
    config->setFlag(BuilderFlag::kSAFETY_SCOPE);
    if (!builder.isNetworkSupported(network, *config))
    {
        return nullptr;
    }
    return std::unique_ptr<IHostMemory>{builder.buildSerializedNetwork(network, *config)};
}
