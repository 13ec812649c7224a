"""`kg serve`: the store as a SPARQL 1.1 endpoint over HTTP, read-only by default.

- :mod:`kg.serve.settings`: what a server is told (store, address, limits, updates and their token).
- :mod:`kg.serve.server`: the store checked, the address bound, uvicorn run.
- :mod:`kg.serve.app`: the Starlette application: the SPARQL 1.1 Protocol at ``/sparql``, updates, the
  Graph Store Protocol at ``/store``, the service description, the query page at ``/``; what is refused
  and with which status.
- :mod:`kg.serve.pool`: the query processes (:class:`kg.store.worker.QueryWorker`) that run queries,
  as many as may run at once, each stopped by the time limit.
- :mod:`kg.serve.negotiation`: the answer's format from ``Accept``.
- :mod:`kg.serve.storage`: reading a whole graph, and writing the store for an update.
- :mod:`kg.serve.description`, :mod:`kg.serve.page`: the service description and the query page.
"""

from kg.serve.settings import Settings

__all__ = ["Settings"]
