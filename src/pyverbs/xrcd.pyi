from pyverbs._verbs import XRCD as XRCD, XRCDInitAttr as XRCDInitAttr
