"""Labelled questions, grouped into the multi-turn sessions they are asked in, with reference
answers. Written by hand for the eval. ``relevant`` lists the documents that answer the question
(empty when nothing in the knowledge base does); ``distractors`` lists documents that look like
answers but are not (neighbouring codes, the superseded version of a policy)."""

from __future__ import annotations

# (type, question, relevant, distractors, reference answer)
Q = tuple[str, str, list[str], list[str], str]
# (session id, lang, topic, questions in turn order)
Session = tuple[str, str, str, list[Q]]

SESSIONS: list[Session] = [
    (
        "s01",
        "en",
        "An integrator building on the API",
        [
            (
                "exact_id",
                "What does E-4217 mean when I create a shift?",
                ["err-e4217"],
                ["err-e4218", "err-e4271"],
                "E-4217 means the employee already has a shift overlapping the new one. Move or delete the existing "
                "shift, or send allow_split: true to turn it into a swap request.",
            ),
            (
                "multi_doc",
                "I'm now getting E-4290 from the bulk endpoint. What should I do?",
                ["err-e4290", "pol-ratelimits-2026"],
                ["pol-ratelimits-2024"],
                "You hit your token's rate limit (300 requests a minute; a bulk call counts as 10). Wait for the "
                "Retry-After seconds before retrying and spread bulk jobs out.",
            ),
            (
                "changed_policy",
                "Is the API rate limit counted per workspace or per token now?",
                ["pol-ratelimits-2026"],
                ["pol-ratelimits-2024"],
                "Per token since 1 March 2026: 300 requests per minute with bursts of 50 per second.",
            ),
            (
                "exact_id",
                "My integration gets 401 with E-4013 since this morning.",
                ["err-e4013"],
                ["err-e4031"],
                "The token was revoked or its creator was archived. Create a new token from a service user.",
            ),
            (
                "paraphrase",
                "The API only ever hands me the first hundred employees. How do I fetch the rest?",
                ["howto-pagination"],
                [],
                "Follow next_cursor: pass it as ?cursor= until it is null. Cursors expire after 15 minutes.",
            ),
            (
                "paraphrase",
                "Our server stopped hearing from Tessel after a bad deploy, and something is switched off on the "
                "integrations page. How do we start receiving events again?",
                ["err-e4295"],
                ["howto-webhooks"],
                "After 50 failed deliveries the endpoint is disabled. Fix the server, click Re-enable and replay "
                "the last 72 hours from the delivery log.",
            ),
            (
                "exact_id",
                "What causes E-4031?",
                ["err-e4031"],
                ["err-e4013"],
                "The token lacks a scope the endpoint needs. Create a new token with the scopes named in the error.",
            ),
            (
                "paraphrase",
                "We resent a request after a timeout and got a conflict saying that key was already used with other "
                "content.",
                ["err-e4302"],
                [],
                "The idempotency key was reused with a different body. Use a new key for each distinct request.",
            ),
            (
                "multi_doc",
                "How do I create 300 shifts at once, and how much of my rate limit does that use?",
                ["howto-bulk-shifts", "pol-ratelimits-2026"],
                ["pol-ratelimits-2024"],
                "POST them to /v2/shifts/bulk (up to 500 per request); one bulk request counts as 10 requests.",
            ),
            (
                "unanswerable",
                "Does the API support GraphQL subscriptions?",
                [],
                [],
                "The knowledge base does not say; only the REST API and webhooks are documented.",
            ),
        ],
    ),
    (
        "s02",
        "en",
        "A payroll manager closing the month",
        [
            (
                "exact_id",
                "The payroll export stopped with E-7003. What is missing?",
                ["err-e7003"],
                ["err-e7031"],
                "Some shift types have no pay code. Map them in Settings > Payroll > Pay codes and export again.",
            ),
            (
                "paraphrase",
                "The file for our accountant won't generate: it complains some staff have no number for the "
                "wages system.",
                ["err-e7042"],
                [],
                "Fill in the Payroll ID on each listed profile, or import the IDs from a CSV.",
            ),
            (
                "exact_id",
                "What does E-7014 mean?",
                ["err-e7014"],
                ["err-e7042"],
                "The pay period was already exported. Re-export changes only, or void the earlier export first.",
            ),
            (
                "changed_policy",
                "When do timesheets lock so managers can no longer edit them?",
                ["pol-timesheet-lock-2026"],
                ["pol-timesheet-lock-2024"],
                "When they are included in a payroll export or 35 days after the shift, whichever comes first.",
            ),
            (
                "paraphrase",
                "Last month's hours already went to the accountant and one of them is wrong. Can anyone still fix it?",
                ["pol-timesheet-lock-2026"],
                ["pol-timesheet-lock-2024"],
                "Yes: an admin can unlock it with a reason that goes to the audit log; the export is marked out of "
                "date so payroll can re-run it.",
            ),
            (
                "multi_doc",
                "What do I need to do before exporting a pay period, and what happens to unapproved timesheets?",
                ["howto-payroll-export", "howto-approve-timesheets", "err-e7020"],
                [],
                "Approve the period's timesheets first; Tessel only exports approved ones and warns about the rest. "
                "It also checks pay codes and payroll IDs before exporting.",
            ),
            (
                "exact_id",
                "Exports to our payroll provider fail with E-7031.",
                ["err-e7031"],
                ["err-e7003"],
                "The connector's authorisation expired (every 90 days) or was revoked. Reconnect it and retry.",
            ),
            (
                "changed_policy",
                "Is overtime under two hours a week still approved automatically?",
                ["pol-overtime-2025"],
                ["pol-overtime-2024"],
                "No. Since August 2025 all overtime needs a manager's approval before the shift, except flagged "
                "emergencies.",
            ),
            (
                "paraphrase",
                "Someone covered a sick colleague at short notice and went over their hours. What now?",
                ["pol-overtime-2025"],
                ["pol-overtime-2024"],
                "That is emergency overtime: it can be worked without approval but must be flagged within 24 hours.",
            ),
            (
                "unanswerable",
                "Which payroll providers does the connector support in Brazil?",
                [],
                [],
                "The knowledge base does not list supported providers by country.",
            ),
        ],
    ),
    (
        "s03",
        "es",
        "Soporte en español para un local",
        [
            (
                "exact_id",
                "¿Qué significa el error E-4217 al crear un turno?",
                ["err-e4217-es"],
                [],
                "Que el empleado ya tiene un turno que se solapa con el nuevo. Mueve o elimina el existente, o usa "
                "allow_split: true.",
            ),
            (
                "changed_policy",
                "¿Cuántos días tengo para pedir el reembolso de un plan anual?",
                ["pol-reembolsos-2025-es"],
                ["pol-reembolsos-2024-es"],
                "30 días desde la compra; después, Business y Enterprise pueden pedir el reembolso proporcional.",
            ),
            (
                "paraphrase",
                "Mis empleados no pueden fichar porque la app dice que no están en su lugar de trabajo.",
                ["err-e5110-es"],
                [],
                "Están fuera de la geocerca o la precisión es peor de 150 m. Que se acerquen a una ventana; el "
                "responsable puede ampliar el radio o aprobar el fichaje.",
            ),
            (
                "exact_id",
                "Un empleado ve 'PIN bloqueado' en el quiosco, ¿cuánto tiene que esperar?",
                ["err-e6021-es"],
                [],
                "15 minutos, o un responsable puede restablecer el PIN desde su perfil.",
            ),
            (
                "changed_policy",
                "Si elimino el espacio de trabajo, ¿cuánto tiempo se guardan los datos?",
                ["pol-retencion-2025-es"],
                ["pol-retencion-2024-es"],
                "30 días; las copias de seguridad caducan a los 35 días, así que nada dura más de 66 días.",
            ),
            (
                "paraphrase",
                "¿Cómo pongo una tableta para que la plantilla fiche con PIN?",
                ["howto-quiosco"],
                [],
                "Instala Tessel Kiosk, y en Ajustes > Quioscos > Emparejar escribe el código y elige el local.",
            ),
            (
                "exact_id",
                "La exportación de nómina se detiene con E-7003.",
                ["err-e7003-es"],
                [],
                "Faltan códigos de pago para algunos tipos de turno; asígnalos en Ajustes > Nómina.",
            ),
            (
                "changed_policy",
                "¿Las horas extra necesitan aprobación antes del turno?",
                ["pol-horas-extra-2025-es"],
                ["pol-horas-extra-2024-es"],
                "Sí, salvo urgencias, que deben marcarse en 24 horas.",
            ),
            (
                "multi_doc",
                "Contraté el plan mensual hace 3 días y quiero cancelar: ¿me devuelven el dinero y qué pasa con "
                "mis datos?",
                ["pol-reembolsos-2025-es", "howto-cancelar"],
                ["pol-reembolsos-2024-es"],
                "El primer cargo mensual se reembolsa dentro de 7 días. Cancelar no borra datos: el espacio pasa a "
                "solo lectura al final del periodo.",
            ),
            (
                "unanswerable",
                "¿Tessel tiene integración con el SII de Chile?",
                [],
                [],
                "La base de conocimiento no lo menciona.",
            ),
        ],
    ),
    (
        "s04",
        "en",
        "An admin sorting out sign-in",
        [
            (
                "exact_id",
                "Users get E-3044 after signing in with our identity provider.",
                ["err-e3044"],
                ["err-e3047"],
                "The IdP's signing certificate changed. Upload the new certificate in Settings > Security > SSO.",
            ),
            (
                "paraphrase",
                "Our new starter gets through the Okta login fine, then lands on a page saying you don't know "
                "who she is.",
                ["err-e3047"],
                ["err-e3044"],
                "Invite them with the exact email the IdP sends, or switch on just-in-time provisioning.",
            ),
            (
                "changed_policy",
                "Do we still have to change passwords every 90 days?",
                ["pol-passwords-2025"],
                ["pol-passwords-2024"],
                "No. Since June 2025 passwords change only when found in a breach; they need 12 characters.",
            ),
            (
                "paraphrase",
                "An employee lost the phone with the authenticator app. How do they get back in?",
                ["howto-reset-2fa"],
                ["howto-2fa"],
                "They can use a recovery code, or an owner resets their two-factor authentication from their profile.",
            ),
            (
                "multi_doc",
                "How do I set up SSO and what happens to passwords once it is enforced?",
                ["howto-sso-setup", "pol-passwords-2025"],
                ["pol-passwords-2024"],
                "Configure SAML or OIDC in Settings > Security, test it, then enforce; passwords are then disabled "
                "except for one break-glass owner.",
            ),
            (
                "exact_id",
                "What is E-3060?",
                ["err-e3060"],
                [],
                "Your session ended (12 hours idle or a password change). Sign in again.",
            ),
        ],
    ),
    (
        "s05",
        "en",
        "An owner asking about billing",
        [
            (
                "changed_policy",
                "Can I get a refund on our annual Business plan after 3 weeks?",
                ["pol-refunds-2025"],
                ["pol-refunds-2024"],
                "Yes: annual plans are fully refundable within 30 days of purchase.",
            ),
            (
                "changed_policy",
                "How long is the free trial?",
                ["pol-trial-2025"],
                ["pol-trial-2024"],
                "14 days of the Business plan, extendable once by 7 days.",
            ),
            (
                "exact_id",
                "Our renewal failed with E-2104.",
                ["err-e2104"],
                ["err-e2119"],
                "The card was declined. Update it in Billing > Payment method; the invoice is retried within an hour.",
            ),
            (
                "changed_policy",
                "If we add 10 seats in the middle of the year, when are we charged?",
                ["pol-seats-2025"],
                ["pol-seats-2024"],
                "Immediately, prorated by day for the rest of the billing period.",
            ),
            (
                "paraphrase",
                "I'm trying to move us up to the bigger package but it's greyed out with something about money we owe.",
                ["err-e2150"],
                [],
                "Plans cannot change while an invoice is open. Pay or void it first.",
            ),
            (
                "changed_policy",
                "If we move to a smaller plan, do we lose our custom reports right away?",
                ["pol-downgrades-2025"],
                ["pol-downgrades-2024"],
                "No. The downgrade applies at the end of the period and the reports stay read-only for 60 days.",
            ),
            (
                "changed_policy",
                "What are the payment terms for annual invoices paid by bank transfer?",
                ["pol-invoices-2025"],
                ["pol-invoices-2024"],
                "Net 30, with a 1.5% monthly late fee after 15 days overdue.",
            ),
            (
                "unanswerable",
                "Do you offer a discount for non-profits?",
                [],
                [],
                "The knowledge base does not mention one.",
            ),
        ],
    ),
    (
        "s06",
        "en",
        "A store manager with mobile and kiosk problems",
        [
            (
                "exact_id",
                "Employees see E-5110 when they clock in.",
                ["err-e5110"],
                ["err-e5114"],
                "They are outside the geofence or location accuracy is poor; move near a window or widen the radius.",
            ),
            (
                "paraphrase",
                "Overnight our clock-in iPad forgot everything and now just displays some digits.",
                ["err-e6001"],
                ["err-e6021"],
                "The kiosk is unpaired. An admin enters the code in Settings > Kiosks > Pair a kiosk.",
            ),
            (
                "exact_id",
                "What does E-6050 on the kiosk mean?",
                ["err-e6050"],
                ["err-e6001"],
                "The tablet's clock is more than 2 minutes off. Turn on network time.",
            ),
            (
                "paraphrase",
                "Clock-ins made without signal yesterday never showed up.",
                ["err-e5203"],
                [],
                "Offline punches upload when the app opens online within 72 hours; lost ones are added by hand.",
            ),
            (
                "paraphrase",
                "How big should the circle around our shop be for mobile clock-in?",
                ["howto-geofence"],
                [],
                "Between 50 and 1000 metres; 150 metres suits most shops.",
            ),
            (
                "unanswerable",
                "Can the kiosk read NFC badges?",
                [],
                [],
                "The knowledge base does not say; kiosks use PINs and optional photos.",
            ),
        ],
    ),
    (
        "s07",
        "en",
        "A customer leaving, asking about data",
        [
            (
                "changed_policy",
                "How long do you keep data after we delete our workspace?",
                ["pol-retention-2025"],
                ["pol-retention-2024"],
                "30 days, with backups expiring after 35, so nothing survives more than 66 days.",
            ),
            (
                "multi_doc",
                "We deleted the workspace by mistake yesterday. Can we get it back?",
                ["howto-restore-workspace", "pol-retention-2025"],
                ["pol-retention-2024"],
                "Yes, within 30 days: use Restore in the confirmation email or ask support.",
            ),
            (
                "changed_policy",
                "How fast do you handle a personal data deletion request?",
                ["pol-deletion-2025"],
                ["pol-deletion-2024"],
                "Within 10 business days, with a confirmation email.",
            ),
            (
                "paraphrase",
                "Before we switch to another tool, how do I take a copy of all our rotas, hours and staff records?",
                ["howto-export-data"],
                [],
                "Owners use Settings > Data > Full export to get a ZIP of CSV files.",
            ),
            ("unanswerable", "Where are your servers located?", [], [], "The knowledge base does not say."),
        ],
    ),
    (
        "s08",
        "en",
        "Setting up a new workspace",
        [
            (
                "exact_id",
                "Employee import fails at row 1 with E-8002.",
                ["err-e8002"],
                ["err-e8015"],
                "The header row is not Tessel's. Paste your data under the template's header.",
            ),
            (
                "exact_id",
                "What does E-8015 mean on import?",
                ["err-e8015"],
                ["err-e8002"],
                "A date is ambiguous. Use ISO dates or pick the date order in the dialog.",
            ),
            (
                "paraphrase",
                "The spreadsheet upload complains that Maria appears twice.",
                ["err-e8027"],
                [],
                "Remove duplicates or choose Update existing employees.",
            ),
            (
                "multi_doc",
                "How do I import our staff and invite them, and what if some are already in Tessel?",
                ["howto-import-employees", "err-e8027"],
                [],
                "Upload the CSV template, check the preview, confirm to send invitations; existing people can be "
                "merged with Update existing employees.",
            ),
            (
                "changed_policy",
                "What support hours do we get on the Business plan?",
                ["pol-support-2026"],
                ["pol-support-2024"],
                "Live chat 24/5 (Monday to Friday UTC) with a first reply within 4 hours.",
            ),
        ],
    ),
    (
        "s09",
        "en",
        "An operations lead during an incident",
        [
            (
                "changed_policy",
                "Nobody can clock in at any of our stores. How fast does Enterprise support respond?",
                ["pol-support-2026"],
                ["pol-support-2024"],
                "It is a priority-1 incident: first response within 1 hour, 24/7.",
            ),
            (
                "exact_id",
                "Shift reminders are not arriving, error E-5240.",
                ["err-e5240"],
                [],
                "Battery savers or Focus modes block them; exclude Tessel and run the notification test.",
            ),
            (
                "paraphrase",
                "The team chat no longer pings us when someone wants to trade a shift.",
                ["err-e9014"],
                ["howto-slack"],
                "The Slack app was removed or the channel archived. Reinstall and pick a live channel.",
            ),
            (
                "exact_id",
                "The labour-to-sales chart is empty and the POS integration shows E-9022.",
                ["err-e9022"],
                [],
                "The POS rejected Tessel's credentials or did not answer. Reconnect; imports retry hourly for 3 days.",
            ),
        ],
    ),
    (
        "s10",
        "es",
        "Una responsable de turnos",
        [
            (
                "exact_id",
                "¿Qué hago con el error E-8015 al importar?",
                ["err-e8015-es"],
                [],
                "Usa fechas ISO o elige el orden de la fecha en el diálogo.",
            ),
            (
                "paraphrase",
                "A un camarero se le rompió el móvil y ahora no puede entrar porque le pide los seis números.",
                ["err-e3012-es"],
                [],
                "Puede usar un código de recuperación; si el reloj del teléfono va mal, los códigos fallan.",
            ),
            (
                "exact_id",
                "La API me devuelve 429 con E-4290.",
                ["err-e4290-es"],
                [],
                "Superaste el límite del token: espera lo que indique Retry-After.",
            ),
            (
                "paraphrase",
                "¿Cómo pido vacaciones desde la app?",
                ["howto-vacaciones"],
                [],
                "Ausencias > Nueva solicitud, con las fechas y el tipo.",
            ),
        ],
    ),
]
