"""PowerShell's modules whose cmdlets fayshell has (PowerShell 7.4's reference lists each
module's cmdlets), so Get-Command names a cmdlet's module (Source, ModuleName), Get-Module lists
them, and Import-Module of one is the no-op it is in PowerShell once it is loaded. fayshell's
own cmdlets are the module ``fayshell``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModuleFacts:
    """One of PowerShell's modules: its version and type, and every cmdlet it has in 7.4."""

    name: str
    version: str
    module_type: str
    cmdlets: frozenset[str]


def _module(name: str, version: str, module_type: str, cmdlets: str) -> ModuleFacts:
    return ModuleFacts(name, version, module_type, frozenset(cmdlets.lower().split()))


#: PowerShell 7.4's modules fayshell takes cmdlets from.
MODULES: tuple[ModuleFacts, ...] = (
    _module(
        "Microsoft.PowerShell.Core",
        "7.4.0",
        "Manifest",
        "Add-History Clear-History Clear-Host Connect-PSSession Debug-Job "
        "Disable-ExperimentalFeature Disable-PSRemoting Disable-PSSessionConfiguration "
        "Disconnect-PSSession Enable-ExperimentalFeature Enable-PSRemoting "
        "Enable-PSSessionConfiguration Enter-PSHostProcess Enter-PSSession "
        "Exit-PSHostProcess Exit-PSSession Export-ModuleMember ForEach-Object Get-Command "
        "Get-ExperimentalFeature Get-Help Get-History Get-Job Get-Module "
        "Get-PSHostProcessInfo Get-PSSession Get-PSSessionCapability "
        "Get-PSSessionConfiguration Get-PSSubsystem Import-Module Invoke-Command "
        "Invoke-History New-Module New-ModuleManifest New-PSRoleCapabilityFile "
        "New-PSSession New-PSSessionConfigurationFile New-PSSessionOption "
        "New-PSTransportOption Out-Default Out-Host Out-Null Receive-Job "
        "Receive-PSSession Register-ArgumentCompleter Register-PSSessionConfiguration "
        "Remove-Job Remove-Module Remove-PSSession Save-Help Set-PSDebug "
        "Set-PSSessionConfiguration Set-StrictMode Start-Job Stop-Job Switch-Process "
        "Test-ModuleManifest Test-PSSessionConfigurationFile "
        "Unregister-PSSessionConfiguration Update-Help Wait-Job Where-Object",
    ),
    _module(
        "Microsoft.PowerShell.Management",
        "7.0.0.0",
        "Manifest",
        "Add-Content Clear-Content Clear-Item Clear-ItemProperty Clear-RecycleBin "
        "Convert-Path Copy-Item Copy-ItemProperty Debug-Process Get-ChildItem "
        "Get-Clipboard Get-ComputerInfo Get-Content Get-HotFix Get-Item Get-ItemProperty "
        "Get-ItemPropertyValue Get-Location Get-Process Get-PSDrive Get-PSProvider "
        "Get-Service Get-TimeZone Invoke-Item Join-Path Move-Item Move-ItemProperty "
        "New-Item New-ItemProperty New-PSDrive New-Service Pop-Location Push-Location "
        "Remove-Item Remove-ItemProperty Remove-PSDrive Remove-Service Rename-Computer "
        "Rename-Item Rename-ItemProperty Resolve-Path Restart-Computer Restart-Service "
        "Resume-Service Set-Clipboard Set-Content Set-Item Set-ItemProperty Set-Location "
        "Set-Service Set-TimeZone Split-Path Start-Process Start-Service Stop-Computer "
        "Stop-Process Stop-Service Suspend-Service Test-Connection Test-Path Wait-Process",
    ),
    _module(
        "Microsoft.PowerShell.Utility",
        "7.0.0.0",
        "Manifest",
        "Add-Member Add-Type Clear-Variable Compare-Object ConvertFrom-Csv "
        "ConvertFrom-Json ConvertFrom-Markdown ConvertFrom-SddlString "
        "ConvertFrom-StringData ConvertTo-Csv ConvertTo-Html ConvertTo-Json ConvertTo-Xml "
        "Debug-Runspace Disable-PSBreakpoint Disable-RunspaceDebug Enable-PSBreakpoint "
        "Enable-RunspaceDebug Export-Alias Export-Clixml Export-Csv Export-FormatData "
        "Export-PSSession Format-Custom Format-Hex Format-List Format-Table Format-Wide "
        "Get-Alias Get-Culture Get-Date Get-Error Get-Event Get-EventSubscriber "
        "Get-FileHash Get-FormatData Get-Host Get-MarkdownOption Get-Member "
        "Get-PSBreakpoint Get-PSCallStack Get-Random Get-Runspace Get-RunspaceDebug "
        "Get-SecureRandom Get-TraceSource Get-TypeData Get-UICulture Get-Unique "
        "Get-Uptime Get-Variable Get-Verb Group-Object Import-Alias Import-Clixml "
        "Import-Csv Import-LocalizedData Import-PowerShellDataFile Import-PSSession "
        "Invoke-Expression Invoke-RestMethod Invoke-WebRequest Join-String "
        "Measure-Command Measure-Object New-Alias New-Event New-Guid New-Object "
        "New-TemporaryFile New-TimeSpan New-Variable Out-File Out-GridView Out-Printer "
        "Out-String Read-Host Register-EngineEvent Register-ObjectEvent Remove-Alias "
        "Remove-Event Remove-PSBreakpoint Remove-TypeData Remove-Variable Select-Object "
        "Select-String Select-Xml Send-MailMessage Set-Alias Set-Date Set-MarkdownOption "
        "Set-PSBreakpoint Set-TraceSource Set-Variable Show-Command Show-Markdown "
        "Sort-Object Start-Sleep Tee-Object Test-Json Trace-Command Unblock-File "
        "Unregister-Event Update-FormatData Update-List Update-TypeData Wait-Debugger "
        "Wait-Event Write-Debug Write-Error Write-Host Write-Information Write-Output "
        "Write-Progress Write-Verbose Write-Warning",
    ),
    _module(
        "Microsoft.PowerShell.Security",
        "7.0.0.0",
        "Manifest",
        "ConvertFrom-SecureString ConvertTo-SecureString Get-Acl "
        "Get-AuthenticodeSignature Get-CmsMessage Get-Credential Get-ExecutionPolicy "
        "Get-PfxCertificate New-FileCatalog Protect-CmsMessage Set-Acl "
        "Set-AuthenticodeSignature Set-ExecutionPolicy Test-FileCatalog "
        "Unprotect-CmsMessage",
    ),
    _module(
        "Microsoft.PowerShell.Host",
        "7.0.0.0",
        "Manifest",
        "Start-Transcript Stop-Transcript",
    ),
    _module(
        "Microsoft.PowerShell.Archive",
        "1.2.5",
        "Script",
        "Compress-Archive Expand-Archive",
    ),
    _module(
        "PSReadLine",
        "2.3.5",
        "Script",
        "Get-PSReadLineKeyHandler Get-PSReadLineOption Remove-PSReadLineKeyHandler "
        "Set-PSReadLineKeyHandler Set-PSReadLineOption",
    ),
)

#: fayshell's own cmdlets' module.
FAYSHELL = "fayshell"


def module_named(name: str) -> ModuleFacts | None:
    """PowerShell's module ``name`` (any case) when fayshell has its cmdlets."""
    return next((m for m in MODULES if m.name.lower() == name.lower()), None)


def module_of(cmdlet: str) -> str:
    """The module cmdlet ``cmdlet`` comes from: PowerShell's, else fayshell's own."""
    low = cmdlet.lower()
    return next((m.name for m in MODULES if low in m.cmdlets), FAYSHELL)
