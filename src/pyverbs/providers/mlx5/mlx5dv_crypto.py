# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 crypto: login sessions (Mlx5CryptoLoginAttr, Mlx5CryptoExtLoginAttr,
Mlx5CryptoLogin), data encryption keys (Mlx5DEKInitAttr, Mlx5DEK,
Mlx5DEKAttr) and the crypto attributes of an mkey (Mlx5CryptoAttr).

Fixed-size byte fields are checked: a credential is exactly 48 bytes;
opaque, key, initial_tweak and keytag at most 8, 128, 16 and 8 bytes (the
rest zeroed).  Upstream copies the full size from shorter bytes."""
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5CryptoLoginAttr, Mlx5CryptoExtLoginAttr,
                                Mlx5CryptoLogin, Mlx5DEKInitAttr,
                                Mlx5DEKAttr, Mlx5DEK, Mlx5CryptoAttr)

_ROW = '{:20}: {:<20}\n'


def _login_attr_str(self):
    return 'Mlx5CryptoLoginAttr:\n' + \
        _ROW.format('Credential id', self.credential_id) + \
        _ROW.format('Import KEK id', self.import_kek_id) + \
        _ROW.format('Credential', str(self.credential)) + \
        _ROW.format('Comp mask', self.comp_mask)


def _ext_login_attr_str(self):
    return 'Mlx5CryptoExtLoginAttr:\n' + \
        _ROW.format('Credential id', self.credential_id) + \
        _ROW.format('Import KEK id', self.import_kek_id) + \
        _ROW.format('Credential', str(self.credential)) + \
        _ROW.format('credential_len', self.credential_len) + \
        _ROW.format('Comp mask', self.comp_mask)


def _dek_init_attr_str(self):
    return 'Mlx5DEKInitAttr:\n' + \
        _ROW.format('key_size', self.key_size) + \
        _ROW.format('Has keytag', self.has_keytag) + \
        _ROW.format('Key purpose', self.key_purpose) + \
        _ROW.format('Opaque', self.opaque) + \
        _ROW.format('Key (in hex format)', self.key) + \
        _ROW.format('Comp mask', self.comp_mask)


def _crypto_attr_str(self):
    row = '{:30}: {:<20}\n'
    return 'Mlx5CryptoAttr:\n' + \
        row.format('Crypto standard', self.crypto_standard) + \
        row.format('Encrypt on TX', self.encrypt_on_tx) + \
        row.format('Signature crypto order', self.signature_crypto_order) + \
        row.format('Data unit size', self.data_unit_size) + \
        row.format('Initial tweak (in hex format)', self.initial_tweak) + \
        row.format('keytag (in hex format)', self.keytag) + \
        row.format('Comp mask', self.comp_mask)


if getattr(_verbs, '_HAVE_MLX5', 0):
    Mlx5CryptoLoginAttr.__str__ = _login_attr_str
    Mlx5CryptoExtLoginAttr.__str__ = _ext_login_attr_str
    Mlx5DEKInitAttr.__str__ = _dek_init_attr_str
    Mlx5CryptoAttr.__str__ = _crypto_attr_str

fill_missing(globals(), __name__)
