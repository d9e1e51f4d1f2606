# quickstart.py — the README's three-line Python example (run by ./scripts/quickstart.sh).
import numpy, clstencil
image = numpy.random.default_rng(0).random((512, 512), dtype=numpy.float32)
smooth = clstencil.filter(image, "gaussian:5,1.2", border="mirror")

print(f"filtered a {image.shape[1]}x{image.shape[0]} float32 image on "
      f"{next(d.name for d in clstencil.devices() if d.default)}: mean {smooth.mean():.4f}")
