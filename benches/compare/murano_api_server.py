"""Serve Murano 14.0.0's own v1 API (Debian's python3-murano) offline, for
the API load comparison (benches/compare/api.sh).

The stack is murano-api's paste pipeline without keystone, as the API
conformance recorder served it: Murano's ContextMiddleware (the context
from the X-* headers), the v1 router, Murano's registered default policy,
an SQLite database with Murano's tables, and an engine stub (a deployment
is handed over and stays running, as with `murano serve`'s queue-only
engine), served by eventlet's WSGI server as murano-api serves (one
process, green threads).

Usage: python3 murano_api_server.py DB_FILE PORT
Prints "listening on http://127.0.0.1:PORT" once it accepts requests.
"""

import sys
from unittest import mock

from oslo_config import cfg
import routes


def build_app(db_file):
    from murano.common import config  # noqa: F401 (registers the options)
    from murano.db import api as db_api  # registers [database]
    cfg.CONF(args=[], project='murano')
    cfg.CONF.set_override('connection', 'sqlite:///' + db_file,
                          group='database')
    cfg.CONF.set_override('env_audit_enabled', False, group='stats')

    from murano.api.middleware import context
    from murano.api.v1 import request_statistics
    from murano.api.v1 import router
    from murano.common import policy
    from murano.common import rpc

    db_api.setup_db()
    from murano.common import policies
    policy.init(use_conf=False)
    # Murano's registered defaults (no policy file), as a deployment
    # without one enforces them.
    policy.set_rules({r.name: r.check_str for r in policies.list_rules()},
                     default_rule='default')
    request_statistics.init_stats()

    engine = mock.Mock(rpc.EngineClient)
    engine.generate_schema.return_value = {}
    engine.call_static_action.return_value = None
    mock.patch('murano.common.rpc.engine', return_value=engine).start()
    mock.patch('murano.common.rpc.api',
               return_value=mock.Mock(rpc.ApiClient)).start()
    # No keystone catalog to ask whether a network service exists.
    mock.patch('murano.db.services.environments.EnvironmentServices.'
               'get_network_driver', return_value='neutron').start()

    v1 = router.API(routes.Mapper())
    app = context.ContextMiddleware(v1)

    def under_v1(environ, start_response):
        path = environ.get('PATH_INFO', '')
        if not path.startswith('/v1/'):
            start_response('404 Not Found', [('Content-Type', 'text/plain')])
            return [b'not found']
        environ['SCRIPT_NAME'] = '/v1'
        environ['PATH_INFO'] = path[len('/v1'):]
        return app(environ, start_response)

    return under_v1


def main():
    db_file, port = sys.argv[1], int(sys.argv[2])
    # murano-api's own server: eventlet's WSGI server (Murano monkey-patches
    # sockets and threads for it when its API package is imported).
    import eventlet
    from eventlet import wsgi as eventlet_wsgi
    app = build_app(db_file)
    sock = eventlet.listen(('127.0.0.1', port), backlog=256)

    class Quiet(object):
        def write(self, *args):
            pass

    print('listening on http://127.0.0.1:%d' % sock.getsockname()[1],
          flush=True)
    eventlet_wsgi.server(sock, app, log=Quiet(), max_size=1000)


if __name__ == '__main__':
    main()
