"""The one secret-name rule (secret_names.json), as the workloads apply it; test/util/secret-names.test.ts
checks the TypeScript side gives the same answers."""

import unittest

from workloads._secrets import is_secret_name

SECRET = ("NVIDIA_NGC_PAT", "NVIDIA_APIKEY", "CUDA_PASSWD", "DEPLOY_PRIVATE_KEY_PEM", "DB_PWD", "GITHUB_TOKEN",
          "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "--api-key", "--hf-token", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
          "INPUT_GITHUB-TOKEN", "registry_password", "SSH_KEY")
PLAIN = ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
         "output_tokens", "OMP_NUM_THREADS", "HOME", "--batch", "PATCH_LEVEL")


class SecretNamesTest(unittest.TestCase):
    def test_secret_shaped_names(self):
        for name in SECRET:
            self.assertTrue(is_secret_name(name), name)

    def test_ordinary_names(self):
        for name in PLAIN:
            self.assertFalse(is_secret_name(name), name)


if __name__ == "__main__":
    unittest.main()
