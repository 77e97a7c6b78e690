/*
 * Run-time compiled formulas (compact_nvrtc.h). The program NVRTC compiles
 * is the library's own compaction kernel (compact/device/ headers and the scan
 * headers it includes, embedded in the library at build time) with the
 * formula's device function, generated from the parsed tree only, as its
 * predicate: the same kernel as a built-in comparison, so a formula runs as
 * fast as the comparison it equals. Nothing the user wrote reaches NVRTC
 * except through the parser.
 *
 * NVRTC is opened with dlopen on first use: libgpuprim links no toolkit
 * library, and where NVRTC is missing only formulas on the CUDA backend fail
 * (GPU_ERR_UNSUPPORTED). The compiled kernels load through the runtime's
 * library API (cudaLibraryLoadData), valid on every device; each device
 * gets its shared-memory attribute and occupancy on first use.
 */
#include <dlfcn.h>
#include <nvrtc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "compact_nvrtc.h"
#include "core/core.h"
#include "device/compact_tile.cuh"

/* The headers of the kernel, embedded by compact/cuda_sources.cmake. */
extern "C" const char *const gp_nvrtc_header_names[];
extern "C" const char *const gp_nvrtc_header_texts[];
extern "C" const int gp_nvrtc_header_count;

namespace gp {
namespace {

constexpr int MAX_DEVICES = 64;

/* The NVRTC functions used, from dlopen. */
struct nvrtc_api {
  bool ok = false;
  char why[256] = "";
#define GP_NVRTC_FN(name) decltype(&::name) name = nullptr;
  GP_NVRTC_FN(nvrtcCreateProgram)
  GP_NVRTC_FN(nvrtcCompileProgram)
  GP_NVRTC_FN(nvrtcDestroyProgram)
  GP_NVRTC_FN(nvrtcGetProgramLogSize)
  GP_NVRTC_FN(nvrtcGetProgramLog)
  GP_NVRTC_FN(nvrtcGetCUBINSize)
  GP_NVRTC_FN(nvrtcGetCUBIN)
  GP_NVRTC_FN(nvrtcGetPTXSize)
  GP_NVRTC_FN(nvrtcGetPTX)
  GP_NVRTC_FN(nvrtcGetNumSupportedArchs)
  GP_NVRTC_FN(nvrtcGetSupportedArchs)
  GP_NVRTC_FN(nvrtcGetErrorString)
#undef GP_NVRTC_FN
};

/* The soname of the NVRTC this library was built against, then fallbacks. */
const nvrtc_api &nvrtc() {
  static const nvrtc_api api = [] {
    nvrtc_api a;
    char soname[64];
    snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDART_VERSION / 1000);
    std::string in_toolkit = std::string("/usr/local/cuda/lib64/") + soname;
    const char *candidates[] = {soname, "libnvrtc.so", in_toolkit.c_str()};
    void *h = nullptr;
    for (const char *c : candidates)
      if ((h = dlopen(c, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!h) {
      snprintf(a.why, sizeof a.why, "NVRTC (%s) could not be loaded", soname);
      return a;
    }
    bool all = true;
#define GP_NVRTC_LOAD(name) all = all && (a.name = reinterpret_cast<decltype(a.name)>(dlsym(h, #name))) != nullptr;
    GP_NVRTC_LOAD(nvrtcCreateProgram)
    GP_NVRTC_LOAD(nvrtcCompileProgram)
    GP_NVRTC_LOAD(nvrtcDestroyProgram)
    GP_NVRTC_LOAD(nvrtcGetProgramLogSize)
    GP_NVRTC_LOAD(nvrtcGetProgramLog)
    GP_NVRTC_LOAD(nvrtcGetCUBINSize)
    GP_NVRTC_LOAD(nvrtcGetCUBIN)
    GP_NVRTC_LOAD(nvrtcGetPTXSize)
    GP_NVRTC_LOAD(nvrtcGetPTX)
    GP_NVRTC_LOAD(nvrtcGetNumSupportedArchs)
    GP_NVRTC_LOAD(nvrtcGetSupportedArchs)
    GP_NVRTC_LOAD(nvrtcGetErrorString)
#undef GP_NVRTC_LOAD
    if (!all) snprintf(a.why, sizeof a.why, "NVRTC (%s) lacks a function gpuprim uses", soname);
    a.ok = all;
    return a;
  }();
  return api;
}

/* What the cache keeps per formula (gp_formula.cuda_cache), for compact
 * and partition ([partition]), each compiled on first use (a compile takes
 * about half a second, most of it in ptxas). */
struct compiled_formula {
  cudaLibrary_t library[2];
  cudaKernel_t kernel[2];
  cudaKernel_t count;                 /* partition's count pass, in library[1] */
  unsigned resident[2][MAX_DEVICES];  /* 0: not yet prepared on that device */
};

std::mutex cache_lock;
std::atomic<uint64_t> compiles{0};

const char *const element_type[] = {"int32_t", "uint32_t", "int64_t", "uint64_t", "float", "double"};

size_t smem_bytes(gpu_dtype t) {
  return gpu_dtype_size(t) == 4 ? compact_smem_bytes<uint32_t>() : compact_smem_bytes<uint64_t>();
}

const char *const kernel_name[2] = {"gp_compact_formula", "gp_partition_formula"};

/* The program: the kernel's headers, the formula, an extern "C" kernel
 * (and partition's count kernel). */
std::string program_source(const gp_formula *f, const char *formula_code, bool partition) {
  const char *T = element_type[f->type];
  std::string s = "#include \"compact/device/compact_tile.cuh\"\n";
  s += formula_code;
  s += "struct gp_formula_fn {\n  static __device__ __forceinline__ bool eval(";
  s += T;
  s += " x) { return gp_expr_pred(x); }\n};\n";
  s += std::string("extern \"C\" __global__ void __launch_bounds__(gp::compact_shape<") + T + ">::threads, 1)\n" +
       kernel_name[partition] + "(gp::compact_args a) {\n  gp::compact_tiles<" + T +
       ", gp::pred_function<gp_formula_fn>, gp::compact_shape<" + T + ">, " + (partition ? "true" : "false") +
       ">(a, gp::pred_function<gp_formula_fn>{});\n}\n";
  if (partition)
    s += std::string("extern \"C\" __global__ void __launch_bounds__(gp::count_shape<") + T +
         ">::threads)\ngp_count_formula(gp::compact_args a) {\n  gp::count_kept<" + T +
         ">(a, gp::pred_function<gp_formula_fn>{});\n}\n";
  return s;
}

/* -arch for this device: its own cubin where NVRTC knows it, else PTX of
 * the newest architecture NVRTC knows that the device runs (JIT at load). */
/* NVRTC's target option, "-arch=sm_90" or "-arch=compute_90" (snprintf,
 * not std::to_string, whose digit table the library would export). */
std::string arch_option(const char *kind, int sm) {
  char option[48];
  std::snprintf(option, sizeof option, "-arch=%s_%d", kind, sm);
  return option;
}

gpu_status target_arch(const char *fn, const nvrtc_api &api, int device, std::string *arch, bool *cubin) {
  int major = 0, minor = 0;
  gpu_status s = gp_cuda_status(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), fn,
                                "cudaDeviceGetAttribute");
  if (s == GPU_OK)
    s = gp_cuda_status(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), fn,
                       "cudaDeviceGetAttribute");
  if (s != GPU_OK) return s;
  const int cc = major * 10 + minor;
  int count = 0, best = 0;
  if (api.nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count < 0) count = 0;
  std::vector<int> archs(size_t(count) + 1); /* as many as NVRTC writes */
  if (count > 0 && api.nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) count = 0;
  for (int i = 0; i < count; i++)
    if (archs[i] <= cc && archs[i] > best) best = archs[i];
  if (best == 0) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: NVRTC cannot compile for sm_%d", fn, cc);
  *cubin = best == cc;
  *arch = arch_option(*cubin ? "sm" : "compute", best);
  return GPU_OK;
}

/* NVRTC's image of f's program for `arch` (-arch=...): a cubin, or PTX. */
gpu_status build_image(const gp_formula *f, bool partition, const std::string &arch, bool cubin, std::string *image) {
  const char *fn = partition ? "gpu_partition" : "gpu_compact";
  const nvrtc_api &api = nvrtc();
  if (!api.ok) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: formulas on the CUDA backend need NVRTC: %s", fn, api.why);
  char *formula_code = gp_expr_cuda_source(f->expr);
  if (!formula_code) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
  const std::string source = program_source(f, formula_code, partition);
  free(formula_code);

  nvrtcProgram prog = nullptr;
  nvrtcResult r = api.nvrtcCreateProgram(&prog, source.c_str(), "gpuprim_formula.cu", gp_nvrtc_header_count,
                                         gp_nvrtc_header_texts, gp_nvrtc_header_names);
  if (r != NVRTC_SUCCESS) return gp_fail(GPU_ERR_DEVICE, "%s: nvrtcCreateProgram: %s", fn, api.nvrtcGetErrorString(r));
  /* No fast math, no contraction, denormals kept: the host evaluator's bits.
   * -default-device: gpuprim.h's host declarations are never called. */
  const char *options[] = {arch.c_str(), "-std=c++17", "-default-device", "--fmad=false", "-ftz=false",
                           "-prec-div=true", "-prec-sqrt=true"};
  r = api.nvrtcCompileProgram(prog, int(sizeof options / sizeof *options), options);
  if (r != NVRTC_SUCCESS) {
    size_t log_size = 0;
    api.nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    api.nvrtcGetProgramLog(prog, &log[0]);
    api.nvrtcDestroyProgram(&prog);
    return gp_fail(GPU_ERR_DEVICE, "%s: NVRTC could not compile the formula (%s): %.600s", fn,
                   api.nvrtcGetErrorString(r), log.c_str());
  }
  size_t size = 0;
  if (cubin) {
    api.nvrtcGetCUBINSize(prog, &size);
    image->resize(size);
    api.nvrtcGetCUBIN(prog, &(*image)[0]);
  } else {
    api.nvrtcGetPTXSize(prog, &size);
    image->resize(size);
    api.nvrtcGetPTX(prog, &(*image)[0]);
  }
  api.nvrtcDestroyProgram(&prog);
  return GPU_OK;
}

/* Compiles and loads one of f's kernels into c. Called under cache_lock. */
gpu_status compile(const gp_formula *f, bool partition, int device, compiled_formula *c) {
  const char *fn = partition ? "gpu_partition" : "gpu_compact";
  const nvrtc_api &api = nvrtc();
  if (!api.ok) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: formulas on the CUDA backend need NVRTC: %s", fn, api.why);
  std::string arch, image;
  bool cubin = true;
  gpu_status s = target_arch(fn, api, device, &arch, &cubin);
  if (s == GPU_OK) s = build_image(f, partition, arch, cubin, &image);
  if (s != GPU_OK) return s;
  compiles++;
  cudaLibrary_t library = nullptr;
  s = gp_cuda_status(cudaLibraryLoadData(&library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), fn,
                     "cudaLibraryLoadData");
  if (s == GPU_OK)
    s = gp_cuda_status(cudaLibraryGetKernel(&c->kernel[partition], library, kernel_name[partition]), fn,
                       "cudaLibraryGetKernel");
  if (s == GPU_OK && partition)
    s = gp_cuda_status(cudaLibraryGetKernel(&c->count, library, "gp_count_formula"), fn, "cudaLibraryGetKernel");
  if (s != GPU_OK) {
    if (library) cudaLibraryUnload(library);
    return s;
  }
  c->library[partition] = library;
  return GPU_OK;
}

}  // namespace

gpu_status formula_kernels(const gp_formula *f, bool partition, compact_kernels *out) {
  const char *fn = partition ? "gpu_partition" : "gpu_compact";
  int device = 0;
  gpu_status s = gp_cuda_status(cudaGetDevice(&device), fn, "cudaGetDevice");
  if (s != GPU_OK) return s;
  if (device >= MAX_DEVICES) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: device %d: formulas use devices 0-63", fn, device);
  std::lock_guard<std::mutex> hold(cache_lock);
  /* The cache lives in the interned formula, held by the calling gpu_compact
   * (gp_formula_acquire): it is not evicted, nor its kernels forgotten,
   * until the call is over. */
  gp_formula *entry = const_cast<gp_formula *>(f);
  compiled_formula *c = static_cast<compiled_formula *>(entry->cuda_cache);
  if (!c) {
    c = static_cast<compiled_formula *>(calloc(1, sizeof *c));
    if (!c) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    entry->cuda_cache = c;
  }
  if (!c->library[partition]) {
    s = compile(f, partition, device, c);
    if (s != GPU_OK) return s;
  }
  unsigned &resident = c->resident[partition][device];
  if (resident == 0) {
    const void *k = reinterpret_cast<const void *>(c->kernel[partition]);
    const size_t smem = smem_bytes(f->type);
    const int threads = gpu_dtype_size(f->type) == 4 ? compact_shape<uint32_t>::threads : compact_shape<uint64_t>::threads;
    int sms = 0, per_sm = 0;
    s = gp_cuda_status(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), fn,
                       "cudaFuncSetAttribute");
    if (s == GPU_OK)
      s = gp_cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem), fn,
                         "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (s == GPU_OK)
      s = gp_cuda_status(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), fn,
                         "cudaDeviceGetAttribute");
    if (s != GPU_OK) return s;
    if (per_sm < 1) return gp_fail(GPU_ERR_DEVICE, "%s: the formula's kernel does not fit on the device", fn);
    resident = unsigned(sms * per_sm);
  }
  out->compact = reinterpret_cast<const void *>(c->kernel[partition]);
  out->resident = resident;
  out->count = reinterpret_cast<const void *>(c->count);
  return GPU_OK;
}

}  // namespace gp

extern "C" uint64_t gp_compact_nvrtc_compiles(void) { return gp::compiles.load(); }

/* Declared in compact_formula.h, called for an idle formula: no call uses its kernels,
 * and every call that launched them has waited for them (it returns a count). */
extern "C" void gp_compact_nvrtc_forget(void *cuda_cache) {
  std::lock_guard<std::mutex> hold(gp::cache_lock);
  gp::compiled_formula *c = static_cast<gp::compiled_formula *>(cuda_cache);
  for (cudaLibrary_t library : c->library)
    if (library) cudaLibraryUnload(library);
  free(c);
}

extern "C" gpu_status gp_compact_nvrtc_build(const gp_formula *f, int sm) {
  std::string image;
  gpu_status s = gp::build_image(f, false, gp::arch_option("sm", sm), true, &image);
  if (s == GPU_OK) s = gp::build_image(f, true, gp::arch_option("sm", sm), true, &image);
  return s;
}
