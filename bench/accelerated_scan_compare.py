#!/usr/bin/env python3
"""gpuprim's linear recurrences against accelerated-scan (PyPI), on its layout.

accelerated-scan solves x[t] = a[t] x[t-1] + b[t] over tensors of shape
(B, C, T), contiguous: B * C sequences of T steps one after another, which
is gpuprim's sequence-major batch. It has two kernels: a CUDA warp kernel
(accelerated_scan.warp, built by PyTorch at import; T a power of 2 from 32
to 65536) and a Triton kernel (accelerated_scan.scalar, any T). Both have a
backward pass, as gpuprim has (gpu_linrec_backward_batch); forward and
backward rows run the same shapes.

Every row runs on the same buffers (f32, a and b uniform in [-1, 1), h0 = 0),
on PyTorch's current stream (gpu_set_stream), each contender's result
checked against gpuprim's first (relative difference above 1e-3: the row
says so). Times are medians of CUDA-event timings, the contenders taking
turns after warm-up. copy: torch.add(a, b, out=h), which reads a and b and
writes h, the bytes a forward pass must move. Ratios are the other's time
over gpuprim's (above 1: gpuprim faster).

    python3 bench/accelerated_scan_compare.py [path/to/libgpuprim.so] [--quick]

Needs PyTorch and Triton (on the GPU machine's image) and accelerated-scan
(carry its wheel: docs/development.md).
"""
import ctypes
import os
import statistics
import sys

import torch

GPU_OK, GPU_F32, GPU_BACKEND_CUDA = 0, 4, 1
REPS, WARMUP = 30, 3


def load_gpuprim(path):
    lib = ctypes.CDLL(path)
    ptr, size = ctypes.c_void_p, ctypes.c_size_t
    lib.gpu_last_error.restype = ctypes.c_char_p
    lib.gpu_set_stream.argtypes = [ptr]
    lib.gpu_linrec.argtypes = [ptr, ptr, ptr, size, ctypes.c_int, ptr, ctypes.c_uint]
    lib.gpu_linrec_batch.argtypes = [ptr, ptr, ptr, size, size, ctypes.c_int, ptr, ctypes.c_uint]
    lib.gpu_linrec_backward.argtypes = [ptr, ptr, ptr, ptr, ptr, size, ctypes.c_int, ptr, ctypes.c_uint]
    lib.gpu_linrec_backward_batch.argtypes = [ptr, ptr, ptr, ptr, ptr, size, size, ctypes.c_int, ptr, ctypes.c_uint]
    if lib.gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK:
        sys.exit("gpuprim: no CUDA backend: " + lib.gpu_last_error().decode())
    lib.gpu_set_stream(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    return lib


def checked(lib, status, what):
    if status != GPU_OK:
        raise RuntimeError(f"{what}: {lib.gpu_last_error().decode()}")


def medians_us(fns):
    """Median time of each fn in us, the fns taking turns (REPS rounds)."""
    for fn in fns:
        for _ in range(WARMUP):
            fn()
    torch.cuda.synchronize()
    times = [[] for _ in fns]
    for _ in range(REPS):
        for i, fn in enumerate(fns):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times[i].append(start.elapsed_time(end) * 1000.0)
    return [statistics.median(t) for t in times]


def differs(x, want):
    """Relative difference above 1e-3, or NaN anywhere (a NaN fails every <=)."""
    scale = max(1.0, want.abs().max().item())
    return not (x - want).abs().max().item() / scale <= 1e-3


def row(name, fns, outputs, reference):
    """Times fns[0] (gpuprim) and the others; prints us and other / gpuprim."""
    names = list(fns)
    for who in names[1:]:
        if who in outputs:
            outputs[who].fill_(float("nan"))
    for who in names:
        fns[who]()
    torch.cuda.synchronize()
    bad = [who for who in outputs if differs(outputs[who], reference)]
    us = medians_us([fns[who] for who in names])
    cells = [f"{who} {t:9.1f} us" + ("" if i == 0 else f" ({t / us[0]:.2f})")
             for i, (who, t) in enumerate(zip(names, us))]
    print(f"{name:<24}" + "  ".join(cells) + ("  DIFFERS: " + ", ".join(bad) if bad else ""), flush=True)
    return not bad


def forward_rows(lib, warp, scalar, shapes):
    ok = True
    for channels, steps in shapes:
        a = torch.rand(1, channels, steps, device="cuda") * 2 - 1
        b = torch.rand(1, channels, steps, device="cuda") * 2 - 1
        h, h_warp, h_triton, h_copy = (torch.empty_like(a) for _ in range(4))
        one = channels == 1

        def gpuprim():
            if one:
                s = lib.gpu_linrec(a.data_ptr(), b.data_ptr(), h.data_ptr(), steps, GPU_F32, None, 0)
            else:
                s = lib.gpu_linrec_batch(a.data_ptr(), b.data_ptr(), h.data_ptr(), steps, channels, GPU_F32, None, 0)
            checked(lib, s, "gpu_linrec")

        fns, outputs = {"gpuprim": gpuprim}, {}
        if warp and steps <= 65536 and steps >= 32 and steps & (steps - 1) == 0:
            fns["warp"] = lambda: warp.warpscan_forward(a, b, h_warp, False)
            outputs["warp"] = h_warp
        fns["triton"] = lambda: scalar.forward_scan[(1, channels)](a, b, h_triton, seqlen=steps, enable_fp_fusion=False)
        outputs["triton"] = h_triton
        fns["copy"] = lambda: torch.add(a, b, out=h_copy)
        gpuprim()
        torch.cuda.synchronize()
        ok &= row(f"fwd {channels}x{steps}", fns, outputs, h)
    return ok


def backward_rows(lib, warp, scalar, shapes):
    ok = True
    for channels, steps in shapes:
        a = torch.rand(1, channels, steps, device="cuda") * 2 - 1
        b = torch.rand(1, channels, steps, device="cuda") * 2 - 1
        dh = torch.rand(1, channels, steps, device="cuda") * 2 - 1
        h = torch.empty_like(a)
        s = lib.gpu_linrec_batch(a.data_ptr(), b.data_ptr(), h.data_ptr(), steps, channels, GPU_F32, None, 0)
        checked(lib, s, "gpu_linrec_batch")
        da, db, da_w, db_w, da_t, db_t = (torch.empty_like(a) for _ in range(6))

        def gpuprim():
            if channels == 1:
                s = lib.gpu_linrec_backward(a.data_ptr(), h.data_ptr(), dh.data_ptr(), da.data_ptr(), db.data_ptr(),
                                            steps, GPU_F32, None, 0)
            else:
                s = lib.gpu_linrec_backward_batch(a.data_ptr(), h.data_ptr(), dh.data_ptr(), da.data_ptr(),
                                                  db.data_ptr(), steps, channels, GPU_F32, None, 0)
            checked(lib, s, "gpu_linrec_backward")

        fns, outputs = {"gpuprim": gpuprim}, {}
        if warp and 32 <= steps <= 65536 and steps & (steps - 1) == 0:
            fns["warp"] = lambda: warp.warpscan_backward(a, h, dh, da_w, db_w)
            outputs["warp"] = db_w
        fns["triton"] = lambda: scalar.backward_scan[(1, channels)](a, h, dh, db_t, da_t, seqlen=steps,
                                                                    enable_fp_fusion=False)
        outputs["triton"] = db_t
        gpuprim()
        torch.cuda.synchronize()
        ok &= row(f"bwd db {channels}x{steps}", fns, outputs, db)
        for who, out in (("warp", da_w), ("triton", da_t)):
            if who in outputs and differs(out, da):
                print(f"  {who}: da differs from gpuprim's")
                ok = False
    return ok


def main():
    args = [x for x in sys.argv[1:] if x != "--quick"]
    quick = len(args) < len(sys.argv) - 1
    here = os.path.dirname(os.path.abspath(__file__))
    lib = load_gpuprim(args[0] if args else os.path.join(here, "..", "build", "libgpuprim.so"))
    from accelerated_scan import scalar
    try:
        from accelerated_scan import warp
    except Exception as e:  # its extension is built at import, with nvcc and ninja
        print(f"accelerated_scan.warp unavailable ({e}); Triton only")
        warp = None
    print(f"{torch.cuda.get_device_name()}; times are medians of {REPS}; (x) = its time / gpuprim's")
    shapes = [(4096, 256), (4096, 4096), (1024, 16384), (256, 65536), (64, 1 << 20),
              (1, 1 << 16), (1, 1 << 20), (1, 1 << 24)]
    if quick:
        shapes = shapes[:2]
    ok = forward_rows(lib, warp, scalar, shapes)
    ok &= backward_rows(lib, warp, scalar, shapes)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
