"""Tessel error-code articles. Each entry is written by hand (symptom, cause, fix); the article
layout varies between a few house styles, as it does in a help centre with many authors."""

from __future__ import annotations

# (code, area, title, symptom, cause, fix)
ErrorEntry = tuple[str, str, str, str, str, str]

ERRORS_EN: list[ErrorEntry] = [
    (
        "E-2104",
        "billing",
        "Card declined at renewal",
        "The renewal invoice shows as failed and owners get an email titled 'We could not charge your card'.",
        "The bank refused the charge, most often because the card expired or the bank flagged a foreign "
        "transaction (Tessel bills from Ireland).",
        "Update the card in Billing > Payment method; the open invoice is retried within an hour. If the card "
        "is valid, ask your bank to allow charges from Tessel Ltd.",
    ),
    (
        "E-2119",
        "billing",
        "VAT number could not be validated",
        "Saving billing details fails with 'VAT ID not valid'.",
        "The VAT number is checked against the EU VIES service, which rejects numbers with spaces or country "
        "prefixes that do not match the billing address, and is sometimes unavailable.",
        "Type the number without spaces and with the country prefix of your billing country. If VIES is down, "
        "save the details without the number and add it later; we do not refund VAT retroactively.",
    ),
    (
        "E-2150",
        "billing",
        "Plan change blocked by open invoice",
        "The Change plan button is greyed out with a note about an unpaid invoice.",
        "A workspace with an unpaid invoice cannot switch plans, because the proration would be calculated "
        "against a period that has not been paid.",
        "Pay or void the open invoice from Billing > Invoices, then change the plan.",
    ),
    (
        "E-3001",
        "sign-in",
        "Invalid email or password",
        "Sign-in fails with 'Email or password is incorrect'.",
        "The email is not a member of any workspace, the password is wrong, or the account uses single "
        "sign-on and has no password at all.",
        "Use Forgot password to set a new one. If your company enforces SSO, use 'Sign in with SSO' instead; "
        "the password form will always fail for SSO accounts.",
    ),
    (
        "E-3012",
        "sign-in",
        "Two-factor code rejected",
        "After entering the six-digit code, Tessel asks for it again with 'Code expired or invalid'.",
        "Codes are valid for 30 seconds and depend on the phone's clock. A phone whose clock drifts by more "
        "than a minute produces codes Tessel will not accept.",
        "Turn on automatic date and time on the phone, then try a fresh code. If you lost the phone, use one "
        "of your recovery codes or ask a workspace owner to reset two-factor authentication for you.",
    ),
    (
        "E-3044",
        "sign-in",
        "SAML response signature invalid",
        "Users are sent back from the identity provider to an error page mentioning E-3044.",
        "The certificate Tessel has on file does not match the one the identity provider signs with, usually "
        "right after the IdP rotated its signing certificate.",
        "Download the new certificate from your IdP and upload it in Settings > Security > Single sign-on. "
        "Keep the old one until every user has signed in again.",
    ),
    (
        "E-3047",
        "sign-in",
        "SSO user not provisioned",
        "The identity provider accepts the user but Tessel shows 'No Tessel account for this identity'.",
        "Just-in-time provisioning is off and nobody invited this person, or the email attribute the IdP "
        "sends differs from the invited address.",
        "Invite the user with the exact email the IdP sends, or switch on just-in-time provisioning so "
        "accounts are created on first sign-in with the Staff role.",
    ),
    (
        "E-3060",
        "sign-in",
        "Session expired",
        "Any action shows 'Your session has ended, please sign in again'.",
        "Web sessions end after 12 hours of inactivity, and Enterprise workspaces can set a shorter limit. "
        "Changing your password also ends every other session.",
        "Sign in again. Admins can change the idle timeout in Settings > Security.",
    ),
    (
        "E-4001",
        "api",
        "Malformed JSON body",
        "The API answers 400 with E-4001 and the position of the parsing error.",
        "The request body is not valid JSON: a trailing comma, single quotes or an unescaped newline.",
        "Serialise the body with a JSON library instead of building it by hand, and send Content-Type: "
        "application/json.",
    ),
    (
        "E-4013",
        "api",
        "Token revoked",
        "Requests that worked yesterday now fail with 401 and E-4013.",
        "An admin revoked the token, or it was created by a user who has since been archived; tokens die "
        "with their creator.",
        "Create a new token from a service user that will not be archived, and store it in your secret manager.",
    ),
    (
        "E-4031",
        "api",
        "Missing scope",
        "The API returns 403 with E-4031 and the name of the scope that is missing.",
        "The token was created without the scope the endpoint needs, for example timesheets:write for "
        "approving timesheets.",
        "Scopes cannot be added to an existing token. Create a token with the scopes listed in the error "
        "and replace the old one.",
    ),
    (
        "E-4040",
        "api",
        "Resource not found",
        "A GET or PATCH returns 404 with E-4040.",
        "The id belongs to another workspace, the object was deleted, or you used a v1 id with a v2 endpoint.",
        "Check which workspace the token belongs to and list the resource first to find its current v2 id.",
    ),
    (
        "E-4217",
        "api",
        "Shift overlaps an existing shift",
        "Creating or moving a shift through the API fails with 422 and E-4217.",
        "The employee already has a shift that overlaps the new one by at least one minute. Tessel never "
        "double-books a person, even when the two shifts are in different locations.",
        "Move or delete the existing shift first, or send allow_split: true to turn the overlap into a "
        "shift swap request that the employee has to accept.",
    ),
    (
        "E-4218",
        "api",
        "Shift outside availability",
        "Creating a shift fails with 422 and E-4218 although there is no overlap.",
        "The employee marked that time as unavailable and the workspace is set to enforce availability.",
        "Ask the employee to update availability, pick someone else, or send override_availability: true "
        "with a manager token; the override is written to the audit log.",
    ),
    (
        "E-4271",
        "api",
        "Break rule violated",
        "Publishing a schedule through the API fails with 422 and E-4271 for some shifts.",
        "A shift longer than the break threshold of the location's labour rules has no break attached, or "
        "the break is shorter than the minimum.",
        "Add a break of at least the minimum length to each listed shift. Labour rules are set per location "
        "in Settings > Locations > Labour rules.",
    ),
    (
        "E-4290",
        "api",
        "Rate limit exceeded",
        "The API answers 429 with E-4290.",
        "Your token sent more requests than its rate limit allows in the current window. Bulk endpoints count "
        "as several requests.",
        "Wait for the number of seconds in the Retry-After header, then retry. Spread bulk jobs over time and "
        "reuse results instead of polling.",
    ),
    (
        "E-4295",
        "api",
        "Webhook endpoint disabled",
        "Webhook deliveries stop and the integration page shows the endpoint as disabled with E-4295.",
        "After 50 consecutive failed deliveries (timeouts or non-2xx answers) Tessel disables the endpoint "
        "to protect your server.",
        "Fix the receiving server, then click Re-enable. Deliveries from the last 72 hours can be replayed "
        "from the delivery log.",
    ),
    (
        "E-4302",
        "api",
        "Idempotency key reused with a different body",
        "A retried POST fails with 409 and E-4302.",
        "The Idempotency-Key header was used before with a request body that differs from this one.",
        "Use a new key for every distinct request and the same key only for exact retries.",
    ),
    (
        "E-5002",
        "mobile",
        "App version no longer supported",
        "The mobile app shows a full-screen message asking to update.",
        "Versions of the Tessel app older than 18 months stop working because they use retired API endpoints.",
        "Update the app from the App Store or Google Play. Managed devices may need the MDM administrator to "
        "push the update.",
    ),
    (
        "E-5110",
        "mobile",
        "Clock-in outside geofence",
        "Employees see 'You are not at your work location' when they tap Clock in.",
        "The location has a geofence and the phone reports a position outside it, or its accuracy is worse "
        "than 150 metres, which is common indoors.",
        "Step outside or near a window and try again, and allow precise location for Tessel. Managers can "
        "widen the geofence radius or approve the clock-in afterwards.",
    ),
    (
        "E-5114",
        "mobile",
        "Location permission denied",
        "Clock-in fails immediately with E-5114 and no map is shown.",
        "The phone denies Tessel access to location, so the geofence cannot be checked.",
        "Open the phone's settings, find Tessel and allow location while using the app.",
    ),
    (
        "E-5203",
        "mobile",
        "Offline punches could not be synced",
        "A banner says some clock-ins made offline could not be uploaded.",
        "Punches stored offline are kept for 72 hours. If the phone stays offline longer, or the app is "
        "reinstalled, the queued punches are lost; a punch that conflicts with an edited timesheet is also "
        "refused.",
        "Connect the phone and open the app so the queue uploads. Missing punches have to be added by a "
        "manager as manual entries.",
    ),
    (
        "E-5240",
        "mobile",
        "Push notifications not delivered",
        "Employees do not get shift reminders although they are switched on.",
        "Battery savers on some Android phones stop background apps, and iOS Focus modes silence them.",
        "Exclude Tessel from battery optimisation and allow it in Focus modes. The Notifications diagnostic "
        "in the app's Help menu sends a test message.",
    ),
    (
        "E-6001",
        "kiosk",
        "Kiosk not paired",
        "The kiosk tablet shows a pairing code screen instead of the clock-in pad.",
        "The kiosk was unpaired by an admin, the location it belonged to was deleted, or the app data was cleared.",
        "An admin enters the pairing code in Settings > Kiosks > Pair a kiosk and chooses the location.",
    ),
    (
        "E-6021",
        "kiosk",
        "PIN locked after failed attempts",
        "An employee cannot clock in at the kiosk and sees 'PIN locked'.",
        "Five wrong PINs in a row lock that employee's PIN on every kiosk for 15 minutes.",
        "Wait 15 minutes, or ask a manager to reset the PIN from the employee's profile.",
    ),
    (
        "E-6033",
        "kiosk",
        "Face photo check failed",
        "The kiosk refuses a clock-in after taking a photo.",
        "Photo verification compares the clock-in photo with the profile photo; glare, masks or a very old "
        "profile photo make it fail.",
        "Retake the photo facing the tablet without backlight. A manager can approve the punch or update "
        "the profile photo; photo checks can also be turned off per location.",
    ),
    (
        "E-6050",
        "kiosk",
        "Kiosk clock out of sync",
        "Punches from one kiosk appear minutes off, and the kiosk shows E-6050.",
        "The tablet's clock differs from Tessel's by more than 2 minutes, so punches are flagged.",
        "Enable network time on the tablet. Flagged punches stay in the timesheet with a warning for the "
        "manager to check.",
    ),
    (
        "E-7003",
        "payroll",
        "Payroll export missing pay codes",
        "The payroll export stops with E-7003 and a list of shift types.",
        "Some shift types are not mapped to a pay code of your payroll provider, so the export cannot say how "
        "to pay them.",
        "Map each listed shift type in Settings > Payroll > Pay codes and run the export again.",
    ),
    (
        "E-7014",
        "payroll",
        "Pay period already exported",
        "Exporting a pay period fails with E-7014.",
        "The period was exported before, and exporting it again could pay hours twice.",
        "If timesheets changed since the first export, choose Re-export changes only. To export everything "
        "again, an admin must first mark the previous export as void.",
    ),
    (
        "E-7020",
        "payroll",
        "Unapproved timesheets in the period",
        "The export warns that some timesheets in the period are not approved.",
        "Tessel only exports approved timesheets; unapproved ones would be silently left out otherwise.",
        "Approve the listed timesheets or remove them from the period. The Approvals page filters by period.",
    ),
    (
        "E-7031",
        "payroll",
        "Payroll Connector authorisation expired",
        "Exports to the connected payroll provider fail with E-7031.",
        "The provider's authorisation for Tessel expires every 90 days, or someone revoked it on the provider's side.",
        "Reconnect the provider in Settings > Payroll > Connector. Exports that failed can be retried from "
        "the export history.",
    ),
    (
        "E-7042",
        "payroll",
        "Employee missing payroll ID",
        "The export lists employees 'without payroll ID' and stops.",
        "Every exported employee needs the identifier your payroll provider uses for them.",
        "Fill in Payroll ID on each listed employee's profile, or import them in bulk from a CSV.",
    ),
    (
        "E-8002",
        "import",
        "CSV header not recognised",
        "An employee or shift import stops at row 1 with E-8002.",
        "The first row must contain Tessel's column names; files exported from spreadsheets in another "
        "language often translate them.",
        "Download the import template, paste your data under its header and upload again.",
    ),
    (
        "E-8015",
        "import",
        "Date format ambiguous",
        "An import stops with E-8015 on a date like 03/04/2026.",
        "Tessel cannot tell whether the date is 3 April or 4 March.",
        "Use ISO dates (2026-04-03) or choose the date order in the import dialog.",
    ),
    (
        "E-8027",
        "import",
        "Duplicate employee in import",
        "An employee import reports E-8027 for some rows.",
        "Two rows share an email or an employee number, or the row matches an existing employee.",
        "Remove the duplicate rows, or choose Update existing employees to merge them.",
    ),
    (
        "E-9001",
        "integrations",
        "Calendar sync token expired",
        "Shifts stop appearing in Google or Outlook calendars.",
        "The employee's calendar connection was revoked or expired after a password change.",
        "The employee reconnects the calendar from Profile > Calendar sync.",
    ),
    (
        "E-9014",
        "integrations",
        "Slack workspace disconnected",
        "Shift swap requests are no longer posted to Slack.",
        "The Tessel app was removed from the Slack workspace, or the channel was archived.",
        "Reinstall the Slack integration from Settings > Integrations and pick a channel that is not archived.",
    ),
    (
        "E-9022",
        "integrations",
        "POS sales import failed",
        "Labour-to-sales charts show no sales for yesterday and the POS integration shows E-9022.",
        "The point-of-sale system did not answer or rejected Tessel's credentials.",
        "Check that the POS account used for the integration still exists, then reconnect it. Imports are "
        "retried hourly for 3 days.",
    ),
]

ERRORS_ES: list[ErrorEntry] = [
    (
        "E-4217",
        "api",
        "El turno se solapa con otro turno",
        "Crear o mover un turno por la API devuelve 422 con E-4217.",
        "El empleado ya tiene un turno que se solapa al menos un minuto con el nuevo. Tessel nunca asigna "
        "dos turnos a la vez a la misma persona, aunque sean en locales distintos.",
        "Mueve o elimina primero el turno existente, o envía allow_split: true para convertir el solapamiento "
        "en una solicitud de cambio de turno que el empleado debe aceptar.",
    ),
    (
        "E-4290",
        "api",
        "Límite de peticiones superado",
        "La API responde 429 con E-4290.",
        "Tu token envió más peticiones de las que permite su límite en la ventana actual.",
        "Espera los segundos que indica la cabecera Retry-After y vuelve a intentarlo.",
    ),
    (
        "E-5110",
        "móvil",
        "Fichaje fuera de la geocerca",
        "Los empleados ven 'No estás en tu lugar de trabajo' al pulsar Fichar.",
        "El local tiene una geocerca y el teléfono indica una posición fuera de ella, o con una precisión "
        "peor de 150 metros, algo habitual en interiores.",
        "Acércate a una ventana o sal al exterior y vuelve a intentarlo. El responsable puede ampliar el radio "
        "de la geocerca o aprobar el fichaje después.",
    ),
    (
        "E-6021",
        "quiosco",
        "PIN bloqueado tras varios intentos",
        "Un empleado no puede fichar en el quiosco y ve 'PIN bloqueado'.",
        "Cinco PIN incorrectos seguidos bloquean el PIN de ese empleado en todos los quioscos durante 15 minutos.",
        "Espera 15 minutos o pide a un responsable que restablezca el PIN desde el perfil del empleado.",
    ),
    (
        "E-7003",
        "nómina",
        "Faltan códigos de pago en la exportación",
        "La exportación de nómina se detiene con E-7003 y una lista de tipos de turno.",
        "Algunos tipos de turno no tienen asignado un código de pago del proveedor de nóminas.",
        "Asigna cada tipo de turno en Ajustes > Nómina > Códigos de pago y vuelve a exportar.",
    ),
    (
        "E-7042",
        "nómina",
        "Empleado sin ID de nómina",
        "La exportación muestra empleados 'sin ID de nómina' y se detiene.",
        "Cada empleado exportado necesita el identificador que usa tu proveedor de nóminas.",
        "Rellena el campo ID de nómina en el perfil de cada empleado o impórtalos desde un CSV.",
    ),
    (
        "E-8015",
        "importación",
        "Formato de fecha ambiguo",
        "Una importación se detiene con E-8015 en una fecha como 03/04/2026.",
        "Tessel no puede saber si es el 3 de abril o el 4 de marzo.",
        "Usa fechas ISO (2026-04-03) o elige el orden de la fecha en el diálogo de importación.",
    ),
    (
        "E-3012",
        "acceso",
        "Código de doble factor rechazado",
        "Tras escribir el código de seis dígitos, Tessel lo vuelve a pedir con 'Código caducado o no válido'.",
        "Los códigos valen 30 segundos y dependen del reloj del teléfono; si el reloj se desvía más de un "
        "minuto, los códigos no se aceptan.",
        "Activa la fecha y hora automáticas en el teléfono y prueba con un código nuevo. Si perdiste el "
        "teléfono, usa un código de recuperación.",
    ),
]
