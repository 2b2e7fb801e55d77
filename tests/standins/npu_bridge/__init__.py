"""Stand-in for Huawei's npu_bridge (see tests/standins/README.md)."""
