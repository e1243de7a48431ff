"""Put this checkout on the running interpreter's path (a .pth file in its site-packages), so that the harness
(``experiments``, which the wheel does not install) imports from any folder in that environment."""

import pathlib
import sysconfig

checkout = pathlib.Path(__file__).resolve().parents[1]
pathlib.Path(sysconfig.get_paths()["purelib"], "mondrian-harness.pth").write_text(f"{checkout}\n")
