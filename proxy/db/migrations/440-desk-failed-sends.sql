-- A thread's `failed` is its failed sends (outbound messages with a status of 400 and up), as the
-- customer page says. It counted failed inbound messages too: recounted where it can have (a count
-- above 0), from the thread's rows, through the thread index.
UPDATE desk_threads t
   SET failed = (SELECT count(*)::int FROM index_messages m
                  WHERE m.number = t.number AND m.party_digits = t.party AND m.desk_inbound = false AND m.status_code >= 400)
 WHERE t.failed > 0;
