; Inno Setup 6.3+ script: the Windows installer of the PyInstaller folder.
; packaging/build.py runs it when ISCC.exe is found, with every /D define below, e.g.
;   ISCC /DAppVersion=0.1.0 /DSourceDir=dist\lpwa-console /DOutputDir=dist
;        /DOutputBaseFilename=lpwa-console-0.1.0-windows-amd64-setup packaging\lpwa-console.iss
; Built by the release workflow's Windows runner (.github/workflows/release.yml); Inno Setup
; does not run on the Linux machines the project is developed on.

#ifndef AppVersion
  #error Pass /DAppVersion=X.Y.Z (packaging/build.py does)
#endif
#ifndef SourceDir
  #define SourceDir "..\dist\lpwa-console"
#endif
#ifndef OutputDir
  #define OutputDir "..\dist"
#endif
#ifndef IconFile
  #define IconFile "..\build\icons\lpwa-console.ico"
#endif
#ifndef OutputBaseFilename
  #define OutputBaseFilename "lpwa-console-" + AppVersion + "-windows-setup"
#endif

[Setup]
AppId={{7D3C1E0A-5B8F-4C2D-9A41-6E2F0B9C7D15}
AppName=LPWA Console
AppVersion={#AppVersion}
AppVerName=LPWA Console {#AppVersion}
DefaultDirName={autopf}\LPWA Console
DefaultGroupName=LPWA Console
DisableProgramGroupPage=yes
; Per-user install unless the user chooses all users: no administrator rights needed.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename={#OutputBaseFilename}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\lpwa-console.exe
SetupIconFile={#IconFile}
; An upgrade installs over the same AppId: the running console is closed first (Restart
; Manager) and the old bundle's files are replaced. The user's data folder and profiles live
; in %LOCALAPPDATA%\lpwa-console and the Credential Manager, never under {app}: an upgrade or
; an uninstall leaves them.
CloseApplications=yes
RestartApplications=no
UsePreviousAppDir=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; The previous version's libraries: a file the new bundle no longer has must not be loaded.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\LPWA Console"; Filename: "{app}\lpwa-console.exe"
Name: "{autodesktop}\LPWA Console"; Filename: "{app}\lpwa-console.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\lpwa-console.exe"; Description: "{cm:LaunchProgram,LPWA Console}"; Flags: nowait postinstall skipifsilent
