# Swift proxy filter placed before s3api (tests/servers/swift_s3.sh with
# S3_ACCESS_KEY set): an AWS access key without a colon, as MinIO and AWS
# issue them ("ckptbench"), becomes tempauth's "account:user" form
# ("ckptbench:ckptbench"). The access key is not part of SigV4's string to
# sign, so the client's signature still checks against the user's secret.
import re

_CREDENTIAL = re.compile(
    r'^(AWS4-HMAC-SHA256\s+Credential=)([^/:,\s]+)(/.*)$', re.S)


class KeyAlias(object):
    def __init__(self, app):
        self.app = app

    def __call__(self, env, start_response):
        m = _CREDENTIAL.match(env.get('HTTP_AUTHORIZATION', ''))
        if m:
            key = m.group(2)
            env['HTTP_AUTHORIZATION'] = '%s%s:%s%s' % (
                m.group(1), key, key, m.group(3))
        return self.app(env, start_response)


def filter_factory(global_conf, **local_conf):
    return KeyAlias
