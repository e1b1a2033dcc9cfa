// A serving engine's command line: its parallelism and its disaggregation
// phase, as vLLM, SGLang, TensorRT-LLM and Dynamo spell them.
#include "../../lib/src/manifests/engine_flags.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("engine flags: each engine's parallelism, as separate words, with '=' or in a shell line") {
  struct Case {
    std::vector<std::string> args;
    std::uint32_t tp, pp, dp, ep;
  };
  const Case cases[] = {
      {{"vllm", "serve", "m", "--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"}, 8, 2, 0, 0},
      {{"python3 -m dynamo.vllm --model m -tp 4 -dp 2 --enable-expert-parallel"}, 4, 0, 2, 8},
      {{"-m", "sglang.launch_server", "--tp-size", "8", "--dp-size", "2", "--ep-size", "16"}, 8, 0, 2, 16},
      {{"--tp=4", "--pp-size=2", "--ep=4"}, 4, 2, 0, 4},
      {{"trtllm-serve", "m", "--tp_size", "8", "--pp_size", "1", "--ep_size", "8"}, 8, 1, 0, 8},
      // Not sizes: zero, words, a flag at the end.
      {{"--tp", "0", "--pp", "two", "--dp"}, 0, 0, 0, 0},
      {{"--enable-expert-parallel"}, 0, 0, 0, 1},
  };
  for (const Case& c : cases) {
    INFO(c.args.front());
    const EngineFlags f = read_engine_flags(c.args);
    CHECK(f.tp == c.tp);
    CHECK(f.pp == c.pp);
    CHECK(f.dp == c.dp);
    CHECK(f.ep == c.ep);
    CHECK_FALSE(f.phase_given);
  }
}

TEST_CASE("engine flags: a role's phase from the flags first, then the first name that says one") {
  struct Case {
    std::vector<std::string_view> names;
    std::vector<std::string> args;
    RolePhase want;
  };
  const Case cases[] = {
      {{"VllmPrefillWorker"}, {}, RolePhase::prefill},
      {{"decode-leader"}, {}, RolePhase::decode},
      {{"PREFILL"}, {}, RolePhase::prefill},
      {{"worker"}, {"python3 -m dynamo.vllm --model m --disaggregation-mode decode"}, RolePhase::decode},
      {{"worker"}, {"--disaggregation-mode", "prefill"}, RolePhase::prefill},
      {{"worker"}, {"--disaggregation-mode=decode"}, RolePhase::decode},
      {{"worker"}, {"-m", "dynamo.vllm", "--is-prefill-worker"}, RolePhase::prefill},
      // The flag wins over a name that says otherwise.
      {{"prefill"}, {"--disaggregation-mode", "decode"}, RolePhase::decode},
      // An aggregated worker: the mode is neither.
      {{"prefill"}, {"--disaggregation-mode", "agg"}, RolePhase::other},
      // A name that says both says nothing; the next one decides.
      {{"prefill-decode", "pworker", "decode"}, {}, RolePhase::decode},
      {{"pleader", "pleader", "prefill"}, {}, RolePhase::prefill},
      {{"router", "frontend"}, {"--http-port", "8000"}, RolePhase::other},
      {{}, {"--disaggregation-mode"}, RolePhase::other},
  };
  for (const Case& c : cases) {
    INFO((c.names.empty() ? std::string_view("(no name)") : c.names.front()));
    CHECK(infer_role_phase(c.names, read_engine_flags(c.args)) == c.want);
  }
}


TEST_CASE("engine flags: the model, by flag or as vLLM's serve argument") {
  CHECK(read_engine_flags({"python3 -m dynamo.vllm --model meta-llama/Llama-3.3-70B-Instruct"}).model ==
        "meta-llama/Llama-3.3-70B-Instruct");
  CHECK(read_engine_flags({"--model-path", "Qwen/Qwen3-0.6B", "--served-model-name", "x"}).model == "Qwen/Qwen3-0.6B");
  CHECK(read_engine_flags({"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8"}).model == "deepseek-ai/DeepSeek-R1");
  CHECK(read_engine_flags({"vllm", "serve", "--port", "8000"}).model.empty());
  CHECK(read_engine_flags({"serve", "m"}).model.empty());
  // The first --model wins.
  CHECK(read_engine_flags({"--model=a", "--model", "b"}).model == "a");
}
