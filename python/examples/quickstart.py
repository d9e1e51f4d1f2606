# quickstart.py — the README's Python example (run by ./scripts/quickstart.sh): an image, a volume (smoothed,
# a median), scipy's calls.
import numpy, clstencil
image = numpy.random.default_rng(0).random((512, 512), dtype=numpy.float32)
smooth = clstencil.filter(image, "gaussian:5,1.2", border="mirror")
volume = numpy.random.default_rng(0).random((64, 128, 128), dtype=numpy.float32)
smooth_volume = clstencil.filter(volume, "gaussian3d:5,1", border="mirror")  # 3-D, every axis bordered
denoised = clstencil.filter(volume, "median3d:3", border=("wrap", "mirror", "mirror"))  # a mode an axis
from clstencil import ndimage                  # scipy.ndimage's signatures, on the device
edges = ndimage.sobel(ndimage.gaussian_filter(image, 2), axis=0)

print(f"filtered a {image.shape[1]}x{image.shape[0]} float32 image and a "
      f"{'x'.join(map(str, volume.shape[::-1]))} volume on "
      f"{next(d.name for d in clstencil.devices() if d.default)}: means {smooth.mean():.4f}, "
      f"{smooth_volume.mean():.4f} and {denoised.mean():.4f}; edges up to {abs(edges).max():.4f}")
