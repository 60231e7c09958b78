-- The needs-reply queue shows a customer's latest inbound message that is not an opt-out: a STOP
-- sent after a question showed as "their last message" and hid the question staff must still
-- answer (by phone or email). Threads whose stored last inbound is an opt-out take the message
-- before it (none: NULL), through the thread index.
UPDATE desk_threads t
   SET (last_inbound_ordinal, last_inbound_at) = (
         SELECT m.ordinal, m.date FROM index_messages m
          WHERE m.number = t.number AND m.party_digits = t.party AND m.desk_inbound AND m.desk_opt IS DISTINCT FROM 'opt-out'
          ORDER BY m.date DESC, m.ordinal DESC LIMIT 1)
 WHERE t.last_inbound_ordinal IS NOT NULL
   AND EXISTS (SELECT 1 FROM index_messages o
                WHERE o.number = t.number AND o.ordinal = t.last_inbound_ordinal AND o.desk_opt = 'opt-out');
