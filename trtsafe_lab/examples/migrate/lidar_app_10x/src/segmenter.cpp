// Lidar segmentation on the DriveOS safety runtime (TensorRT 10.x).
#include "NvInferSafeRuntime.h"

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace safe = nvinfer2::safe;

class Segmenter
{
public:
    bool init(std::vector<char> const& blob, safe::ISafeRecorder& recorder)
    {
        mRecorder = &recorder;
        return safe::createTRTGraph(mGraph, blob.data(), static_cast<int64_t>(blob.size()), recorder, true)
            == safe::ErrorCode::kSUCCESS;
    }

    bool infer(cudaStream_t stream)
    {
        if (mGraph->executeAsync(stream) != safe::ErrorCode::kSUCCESS)
        {
            return false;
        }
        return mGraph->sync() == safe::ErrorCode::kSUCCESS;
    }

    ~Segmenter()
    {
        safe::destroyTRTGraph(mGraph);
    }

private:
    safe::ITRTGraph* mGraph{nullptr};
    safe::ISafeRecorder* mRecorder{nullptr};
};
