"""Sessions in the user's own vocabulary (English, and Spanish mixed with English) and a session
whose look-alike pages are variant policies for another audience. Same tuple as
``questions_hard.py``. Written by hand for the eval."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.questions_hard import SessionL

USER_SESSIONS: list[SessionL] = [
    (
        "s12",
        "A shop manager who describes what they see",
        [
            (
                "paraphrase",
                "The tablet in our break room wants some code typed in before anyone can start their day.",
                ["err-e6001"],
                ["faq-kiosk", "err-e6021"],
                "The kiosk is not paired (E-6001). An admin enters the code it shows in Settings > Kiosks > "
                "Pair a kiosk and picks the location.",
                "en",
            ),
            (
                "paraphrase",
                "One of my cashiers hammered in the wrong number a few times and now the tablet won't let her start.",
                ["err-e6021"],
                ["err-e6033"],
                "Five wrong PINs lock her PIN on every kiosk for 15 minutes; wait, or a manager resets the PIN.",
                "en",
            ),
            (
                "paraphrase",
                "The door tablet turns people away right after it snaps their picture.",
                ["err-e6033"],
                ["blog-kiosk-photos"],
                "The photo check failed (glare, masks, an old profile photo). Retake it facing the tablet; a "
                "manager can approve the punch, update the profile photo or turn photo checks off.",
                "en",
            ),
            (
                "paraphrase",
                "Half my team never gets the buzz on their phone before a shift starts.",
                ["err-e5240"],
                [],
                "Battery savers or Focus modes stop the notifications: exclude Tessel from battery optimisation "
                "and allow it in Focus modes; the Notifications diagnostic sends a test.",
                "en",
            ),
            (
                "paraphrase",
                "Since I changed my password my shifts vanished from my Google calendar.",
                ["err-e9001"],
                ["howto-calendar-sync"],
                "The calendar connection expired with the password change; reconnect it in Profile > Calendar sync.",
                "en",
            ),
            (
                "paraphrase",
                "I want next week's rota to look exactly like this week's without typing it all in again.",
                ["howto-copy-week"],
                [],
                "Open next week and choose Copy from > Previous week; shifts of people on approved leave become "
                "open shifts.",
                "en",
            ),
            (
                "paraphrase",
                "How do I let people grab extra hours that nobody has been given yet?",
                ["howto-open-shifts"],
                [],
                "Create the shift without an employee (an open shift) and choose who may claim it.",
                "en",
            ),
            (
                "paraphrase",
                "The system should refuse a rota that doesn't leave people enough rest between a late and an early.",
                ["howto-labour-rules"],
                ["err-e4271"],
                "Set the minimum rest between shifts in Settings > Locations > Labour rules and turn on strict "
                "mode so publishing is blocked.",
                "en",
            ),
            (
                "multi_doc",
                "Someone quit. How do I stop paying for them without losing the hours they already worked?",
                ["howto-archive-employee", "pol-seats-2025"],
                ["pol-seats-2024"],
                "Archive them: the seat is freed and their timesheets stay for payroll. Archived employees use no "
                "seat (deactivated ones still do); the removed seat is credited at the next renewal.",
                "en",
            ),
            (
                "unanswerable",
                "Can I cap how many people are allowed to be off on holiday on the same day?",
                [],
                ["howto-time-off", "howto-leave-balances"],
                "The knowledge base does not say; it covers leave requests and balances only.",
                "en",
            ),
        ],
    ),
    (
        "s14",
        "Un desarrollador que mezcla español e inglés",
        [
            (
                "paraphrase",
                "El export de payroll falla con 'authorisation expired', ¿cómo reconecto el provider?",
                ["err-e7031"],
                ["err-e7003-es"],
                "La autorización del proveedor caduca cada 90 días: reconéctalo en Settings > Payroll > "
                "Connector y reintenta las exportaciones fallidas desde el historial.",
                "es+en",
            ),
            (
                "paraphrase",
                "¿Cómo hago un bulk upload de shifts por la API sin que un overlap me tumbe todo el batch?",
                ["howto-bulk-shifts"],
                ["err-e4217-es"],
                "POST de hasta 500 turnos a /v2/shifts/bulk: la respuesta dice cuáles fallaron, sin rechazar "
                "el lote entero. Cuenta como 10 peticiones.",
                "es+en",
            ),
            (
                "paraphrase",
                "Los swap requests ya no salen en el canal de Slack, ¿qué pasó?",
                ["err-e9014"],
                ["howto-slack"],
                "Se quitó la app de Slack o se archivó el canal (E-9014): reinstala la integración y elige un "
                "canal no archivado.",
                "es+en",
            ),
            (
                "changed_policy",
                "¿El free trial se puede extender si necesitamos más tiempo para evaluar?",
                ["pol-trial-2025"],
                ["pol-trial-2024", "pol-trial-education"],
                "Sí, una vez y 7 días, desde Settings > Plan o pidiéndolo a soporte antes de que termine.",
                "es+en",
            ),
            (
                "paraphrase",
                "Mi token da 403 con missing scope. ¿Le puedo añadir el scope que falta?",
                ["err-e4031"],
                ["err-e4013", "howto-token-api"],
                "No: los scopes no se pueden añadir a un token existente. Crea uno nuevo con los scopes del "
                "error y sustituye el viejo.",
                "es+en",
            ),
            (
                "unanswerable",
                "¿Hay un sandbox environment para probar la API sin tocar datos reales?",
                [],
                ["howto-token-api", "faq-api"],
                "La base de conocimiento no lo dice.",
                "es+en",
            ),
        ],
    ),
    (
        "s15",
        "An owner whose workspace is not the usual case",
        [
            (
                "paraphrase",
                "We bought Tessel through a reseller and want out of the annual plan after ten days. Who gives "
                "us the money back?",
                ["pol-refunds-partner"],
                ["pol-refunds-2025", "pol-refunds-2024"],
                "The partner: it bills and refunds a partner-billed workspace under its own terms; Tessel cannot "
                "refund it directly.",
                "en",
            ),
            (
                "paraphrase",
                "We are on Enterprise Dedicated. How many calls a minute can one token make?",
                ["pol-ratelimits-dedicated"],
                ["pol-ratelimits-2026", "pol-ratelimits-2024"],
                "1,200 requests a minute per token, bursts of 100 a second; bulk endpoints count as 5.",
                "en",
            ),
            (
                "paraphrase",
                "We run three care homes on Tessel for Healthcare. If we close our account, how long until our "
                "data is gone?",
                ["pol-retention-health"],
                ["pol-retention-2025", "pol-retention-2024"],
                "90 days after deletion, then it is purged; backups expire after 35 days; audit logs stay 10 years.",
                "en",
            ),
            (
                "paraphrase",
                "I'm setting Tessel up for a university department. Can the trial be stretched if term starts late?",
                ["pol-trial-education"],
                ["pol-trial-2025", "pol-trial-2024"],
                "No: the 60-day trial for schools and universities cannot be extended.",
                "en",
            ),
            (
                "unanswerable",
                "Our partner manages the workspace. What are the partner's support hours?",
                [],
                ["pol-support-partner", "pol-support-2026"],
                "The knowledge base does not say: partners support in their own hours.",
                "en",
            ),
            (
                "changed_policy",
                "Accounting got a bill with an extra charge on it because we paid a few weeks late. Is that a thing?",
                ["pol-invoices-2025"],
                ["pol-invoices-2024", "faq-billing"],
                "Yes: an invoice more than 15 days overdue accrues a late fee of 1.5% a month.",
                "en",
            ),
            (
                "changed_policy",
                "If we just stop paying, when do you cut us off?",
                ["pol-invoices-2025"],
                ["pol-invoices-2024"],
                "After 45 days overdue the workspace becomes read-only until paid; it is never deleted for "
                "non-payment without 30 days' written notice.",
                "en",
            ),
            (
                "unanswerable",
                "Is there a discount if we pay three years upfront?",
                [],
                ["faq-billing", "pol-invoices-2025"],
                "The knowledge base does not say.",
                "en",
            ),
        ],
    ),
    (
        "s16",
        "An employee on the phone app",
        [
            (
                "paraphrase",
                "The app won't let me punch in and there's not even a map, it just errors straight away.",
                ["err-e5114"],
                ["err-e5110"],
                "The phone denies Tessel location access: allow location while using the app in the phone's settings.",
                "en",
            ),
            (
                "paraphrase",
                "The app is blocking everything and nagging me to get a newer version.",
                ["err-e5002"],
                [],
                "App versions older than 18 months stop working; update from the App Store or Google Play.",
                "en",
            ),
            (
                "paraphrase",
                "My manager keeps putting me on Sundays. Can I block those out myself?",
                ["howto-availability"],
                [],
                "Mark Sundays as unavailable every week in Profile > Availability; if the workspace enforces "
                "availability, managers need an override to schedule you then.",
                "en",
            ),
            (
                "paraphrase",
                "I swiped in three times down in the basement stockroom with no signal and none of it shows up.",
                ["err-e5203"],
                [],
                "Offline punches are kept 72 hours: connect and open the app so they upload; lost ones are "
                "added by a manager.",
                "en",
            ),
            (
                "changed_policy",
                "Do I have to use that six-digit code thing as an owner, or can I switch it off?",
                ["pol-passwords-2025"],
                ["pol-passwords-2024", "faq-account", "howto-2fa"],
                "Owners must: two-factor authentication is required for owners and admins.",
                "en",
            ),
            (
                "unanswerable",
                "Can I see in the app how much I'll earn this month?",
                [],
                ["howto-labour-cost"],
                "The knowledge base does not say.",
                "en",
            ),
        ],
    ),
]
